import { PlantNotFoundError, PlantPreconditionFailedError } from './errors.ts';
import { type Plant, toPlant } from './plant.ts';
import { parsePlantPatch, parsePlantReplacement } from './plant-change.schema.ts';
import { parsePlantId } from './plant-parameters.schema.ts';
import { type PlantPrecondition, whileMatching } from './plant-precondition.ts';
import type { PlantChange, PlantRepository } from './plant-repository.port.ts';

export interface ChangePlantOptions {
  /** Absent: no precondition; the plant must exist (PlantNotFoundError otherwise). */
  readonly ifMatch?: PlantPrecondition;
}

export interface ChangePlantDeps {
  readonly plants: Pick<PlantRepository, 'findById' | 'update'>;
}

async function changePlant(
  deps: ChangePlantDeps,
  id: bigint,
  change: PlantChange,
  ifMatch: PlantPrecondition | undefined,
): Promise<Plant> {
  if (ifMatch === undefined || ifMatch === 'any') {
    const outcome = await deps.plants.update(id, change, ifMatch);
    if (outcome.outcome === 'updated') return toPlant(outcome.plant);
    // Without a content to compare, a plant that is not changed is a plant that is not there.
    throw ifMatch === 'any' ? new PlantPreconditionFailedError(id) : new PlantNotFoundError(id);
  }
  const found = await deps.plants.findById(id);
  return whileMatching(id, found && toPlant(found), ifMatch, async (expected) => {
    const outcome = await deps.plants.update(id, change, expected);
    if (outcome.outcome === 'updated') return { done: toPlant(outcome.plant) };
    return { current: outcome.outcome === 'absent' ? undefined : toPlant(outcome.current) };
  });
}

/**
 * Replaces the plant stored under `id` with untrusted `input` (a PUT body: `name`, `tag` optional, an
 * `id` member only when it is `id`): without a tag, the stored tag is removed. Never creates a plant.
 * Answers the plant as stored. Throws, before storage is asked: InvalidParameterError for an `id`
 * outside int64, InvalidPlantError naming each bad member; then PlantPreconditionFailedError when
 * `ifMatch` is given and the plant stored does not meet it (or there is none), PlantNotFoundError when
 * no plant is stored under `id`, and whatever the repository throws.
 */
export async function replacePlant(
  deps: ChangePlantDeps,
  id: bigint,
  input: unknown,
  options: ChangePlantOptions = {},
): Promise<Plant> {
  const plantId = parsePlantId(id);
  return changePlant(deps, plantId, parsePlantReplacement(plantId, input), options.ifMatch);
}

/**
 * Applies an untrusted JSON merge patch (RFC 7396; a PATCH body) to the plant stored under `id`: `name`
 * a string replaces the name, `tag` a string sets the tag and null removes it, members left out stay,
 * an `id` member is allowed only when it is `id`, others are ignored. The patch is applied in one
 * atomic step: it never undoes a concurrent change of a member it leaves out. Answers the plant as
 * stored. Throws as replacePlant does.
 */
export async function patchPlant(
  deps: ChangePlantDeps,
  id: bigint,
  patch: unknown,
  options: ChangePlantOptions = {},
): Promise<Plant> {
  const plantId = parsePlantId(id);
  return changePlant(deps, plantId, parsePlantPatch(plantId, patch), options.ifMatch);
}
