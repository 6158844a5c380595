import type { PlantRepository } from '@plant-store/domain';
import type { Metrics } from './metrics.ts';

/** The repository, counting the plants it stores for the first time. */
export function countCreatedPlants(plants: PlantRepository, metrics: Metrics): PlantRepository {
  return {
    insertIfAbsent: async (plant) => {
      const outcome = await plants.insertIfAbsent(plant);
      if (outcome.inserted) metrics.plantCreated();
      return outcome;
    },
    findById: (id) => plants.findById(id),
    listAfter: (after, limit) => plants.listAfter(after, limit),
    deleteById: (id) => plants.deleteById(id),
  };
}
