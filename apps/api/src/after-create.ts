import type { PlantRepository } from '@plant-store/domain';

/** The repository, calling `then` after each plant it stores for the first time (never for a retry). */
export function afterCreate(plants: PlantRepository, then: () => void): PlantRepository {
  return {
    insertIfAbsent: async (plant, created) => {
      const outcome = await plants.insertIfAbsent(plant, created);
      if (outcome.inserted) then();
      return outcome;
    },
    findById: (id) => plants.findById(id),
    listAfter: (after, limit, maxBytes, tag) => plants.listAfter(after, limit, maxBytes, tag),
    update: (id, change, expected) => plants.update(id, change, expected),
    deleteById: (id, expected) => plants.deleteById(id, expected),
  };
}
