import type { InsertOutcome, NewPlant, PlantRepository } from '@plant-store/domain';

// Callers own the objects they pass and get: copying keeps the store immune to their later changes.
function copyOf(plant: NewPlant): NewPlant {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}

/** A PlantRepository over a Map: nothing survives the process. For tests, demos and throwaway runs. */
export function createMemoryPlantRepository(): PlantRepository {
  const plants = new Map<bigint, NewPlant>();
  return {
    // The check and the set run in one synchronous step, so concurrent calls cannot interleave.
    async insertIfAbsent(plant): Promise<InsertOutcome> {
      const existing = plants.get(plant.id);
      if (existing) return { inserted: false, existing: copyOf(existing) };
      plants.set(plant.id, copyOf(plant));
      return { inserted: true };
    },
    async findById(id) {
      const plant = plants.get(id);
      return plant && copyOf(plant);
    },
  };
}
