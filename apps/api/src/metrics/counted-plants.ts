import type { PlantRepository } from '@plant-store/domain';
import type { Metrics } from './metrics.ts';

/** The repository, counting the plants it stores for the first time, and telling `onCreated` of each. */
export function countCreatedPlants(
  plants: PlantRepository,
  metrics: Metrics,
  onCreated: () => void = () => {},
): PlantRepository {
  return {
    insertIfAbsent: async (plant, created) => {
      const outcome = await plants.insertIfAbsent(plant, created);
      if (outcome.inserted) {
        metrics.plantCreated();
        onCreated();
      }
      return outcome;
    },
    findById: (id) => plants.findById(id),
    listAfter: (after, limit, maxBytes) => plants.listAfter(after, limit, maxBytes),
    deleteById: (id) => plants.deleteById(id),
  };
}
