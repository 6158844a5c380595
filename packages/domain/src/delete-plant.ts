import { PlantNotFoundError } from './errors.ts';
import { parsePlantId } from './plant-parameters.schema.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface DeletePlantDeps {
  readonly plants: Pick<PlantRepository, 'deleteById'>;
}

/**
 * Deletes the plant stored under `id`; the id is then free for a plant with any content.
 * Throws InvalidParameterError for an id outside int64, PlantNotFoundError when nothing was stored
 * under it (of concurrent deletes of one plant, all but one), and whatever the repository throws.
 */
export async function deletePlant(deps: DeletePlantDeps, id: bigint): Promise<void> {
  const plantId = parsePlantId(id);
  if (!(await deps.plants.deleteById(plantId))) throw new PlantNotFoundError(plantId);
}
