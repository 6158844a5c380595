import type { InsertOutcome, NewPlant, PlantCreated, PlantRepository } from '@plant-store/domain';
import { createSortedById } from './sorted-by-id.ts';

// Callers own the objects they pass and get: copying keeps the store immune to their later changes.
function copyOf(plant: NewPlant): NewPlant {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}

/**
 * A PlantRepository over a Map, with the plants also kept in id order for listing. Nothing survives the
 * process. For tests, demos and throwaway runs. Every method reads or changes the store in one
 * synchronous step, so concurrent calls cannot interleave within one.
 */
export function createMemoryPlantRepository(
  /** Called with the event of each plant inserted, in the same synchronous step; absent: events are dropped. */
  record?: (created: PlantCreated) => void,
): PlantRepository {
  const plants = new Map<bigint, NewPlant>();
  const ordered = createSortedById<NewPlant>();
  return {
    async insertIfAbsent(plant, created): Promise<InsertOutcome> {
      const existing = plants.get(plant.id);
      if (existing) return { inserted: false, existing: copyOf(existing) };
      const stored = copyOf(plant);
      plants.set(plant.id, stored);
      ordered.add(stored);
      if (created && record) record({ type: created.type, plant: copyOf(created.plant) });
      return { inserted: true };
    },
    async findById(id) {
      const plant = plants.get(id);
      return plant && copyOf(plant);
    },
    async listAfter(after, limit) {
      return ordered.after(after, limit).map(copyOf);
    },
    async deleteById(id) {
      if (!plants.delete(id)) return false;
      ordered.delete(id);
      return true;
    },
  };
}
