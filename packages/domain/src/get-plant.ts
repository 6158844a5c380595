import { PlantNotFoundError } from './errors.ts';
import { type Plant, toPlant } from './plant.ts';
import { parsePlantId } from './plant-parameters.schema.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface GetPlantDeps {
  readonly plants: Pick<PlantRepository, 'findById'>;
}

/**
 * The plant stored under `id`, without its id (as createPlant answers it).
 * Throws InvalidParameterError for an id outside int64, PlantNotFoundError when nothing is stored
 * under it, and whatever the repository throws (StorageUnavailableError) when storage is down.
 */
export async function getPlant(deps: GetPlantDeps, id: bigint): Promise<Plant> {
  const plantId = parsePlantId(id);
  const plant = await deps.plants.findById(plantId);
  if (plant === undefined) throw new PlantNotFoundError(plantId);
  return toPlant(plant);
}
