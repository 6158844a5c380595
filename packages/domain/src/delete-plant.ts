import { PlantNotFoundError, PlantPreconditionFailedError } from './errors.ts';
import { toPlant } from './plant.ts';
import { parsePlantId } from './plant-parameters.schema.ts';
import { type PlantPrecondition, whileMatching } from './plant-precondition.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface DeletePlantDeps {
  readonly plants: Pick<PlantRepository, 'deleteById'>;
}

/** What a delete with a test of the content needs: the plant is read to test it. */
export interface ConditionalDeletePlantDeps {
  readonly plants: Pick<PlantRepository, 'deleteById' | 'findById'>;
}

export interface DeletePlantOptions<Precondition extends PlantPrecondition = PlantPrecondition> {
  /** Absent: no precondition; the plant must exist (PlantNotFoundError otherwise). */
  readonly ifMatch?: Precondition;
}

/**
 * Deletes the plant stored under `id`; the id is then free for a plant with any content.
 * Throws InvalidParameterError for an id outside int64; PlantPreconditionFailedError when `ifMatch` is
 * given and the plant stored does not meet it (or there is none), and nothing is deleted; else
 * PlantNotFoundError when nothing was stored under it (of concurrent deletes of one plant, all but
 * one); and whatever the repository throws. A test of the content (a function) needs `findById` too.
 */
export function deletePlant(
  deps: DeletePlantDeps,
  id: bigint,
  options?: DeletePlantOptions<'any'>,
): Promise<void>;
export function deletePlant(
  deps: ConditionalDeletePlantDeps,
  id: bigint,
  options?: DeletePlantOptions,
): Promise<void>;
export async function deletePlant(
  deps: DeletePlantDeps | ConditionalDeletePlantDeps,
  id: bigint,
  options: DeletePlantOptions = {},
): Promise<void> {
  const plantId = parsePlantId(id);
  const { ifMatch } = options;
  if (ifMatch === undefined || ifMatch === 'any') {
    if (await deps.plants.deleteById(plantId)) return;
    throw ifMatch === 'any' ? new PlantPreconditionFailedError(plantId) : new PlantNotFoundError(plantId);
  }
  const { plants } = deps as ConditionalDeletePlantDeps;
  const found = await plants.findById(plantId);
  await whileMatching(plantId, found && toPlant(found), ifMatch, async (expected) => {
    if (await plants.deleteById(plantId, expected)) return { done: undefined };
    // Changed or deleted since it was read: what is there now is tested again.
    const current = await plants.findById(plantId);
    return { current: current && toPlant(current) };
  });
}
