import { PlantConflictError } from './errors.ts';
import { parseNewPlant } from './new-plant.schema.ts';
import { hasSameContent, type Plant, toPlant } from './plant.ts';
import { plantCreated } from './plant-created.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface CreatePlantDeps {
  readonly plants: Pick<PlantRepository, 'insertIfAbsent'>;
}

export interface CreatePlantResult {
  readonly plant: Plant;
  /** False when the same plant was stored already: the request was a retry and changed nothing. */
  readonly created: boolean;
}

/**
 * Creates a plant from untrusted input.
 * Throws InvalidPlantError for bad input, PlantConflictError when the id holds other content,
 * and whatever the repository throws (StorageUnavailableError) when storage is down.
 */
export async function createPlant(deps: CreatePlantDeps, input: unknown): Promise<CreatePlantResult> {
  const plant = parseNewPlant(input);
  const outcome = await deps.plants.insertIfAbsent(plant, plantCreated(plant));
  if (outcome.inserted) return { plant: toPlant(plant), created: true };
  // A client that lost our answer may send the same plant again: that is a retry, not a conflict.
  if (hasSameContent(outcome.existing, plant)) return { plant: toPlant(outcome.existing), created: false };
  throw new PlantConflictError(plant.id);
}
