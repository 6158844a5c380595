import type { InsertOutcome, NewPlant, PlantCreated, PlantRepository } from '@plant-store/domain';
import { createSortedById } from './sorted-by-id.ts';

// Callers own the objects they pass and get: copying keeps the store immune to their later changes.
function copyOf(plant: NewPlant): NewPlant {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}

/** The repository's methods as synchronous steps: a step cannot interleave with another. */
export type MemoryPlantStore = {
  readonly [Method in keyof PlantRepository]: (
    ...args: Parameters<PlantRepository[Method]>
  ) => Awaited<ReturnType<PlantRepository[Method]>>;
};

/**
 * Plants in a Map, also kept in id order for listing, each method one synchronous step. The
 * storage calls it directly, so a call costs one promise (its own), not one per layer.
 */
export function createMemoryPlantStore(
  /**
   * Called with the event of each plant inserted, in the same synchronous step, before the plant is
   * stored: when it throws, nothing is stored. Absent: events are dropped.
   */
  record?: (created: PlantCreated) => void,
): MemoryPlantStore {
  const plants = new Map<bigint, NewPlant>();
  const ordered = createSortedById<NewPlant>();
  return {
    insertIfAbsent(plant, created): InsertOutcome {
      const existing = plants.get(plant.id);
      if (existing) return { inserted: false, existing: copyOf(existing) };
      // The event first: if it cannot be recorded (it throws), the plant is not stored either.
      if (created && record) record({ type: created.type, plant: copyOf(created.plant) });
      const stored = copyOf(plant);
      plants.set(plant.id, stored);
      ordered.add(stored);
      return { inserted: true };
    },
    findById(id) {
      const plant = plants.get(id);
      return plant && copyOf(plant);
    },
    listAfter(after, limit) {
      return ordered.after(after, limit).map(copyOf);
    },
    deleteById(id) {
      if (!plants.delete(id)) return false;
      ordered.delete(id);
      return true;
    },
  };
}

/**
 * A PlantRepository over a Map, with the plants also kept in id order for listing. Nothing survives the
 * process. For tests, demos and throwaway runs. Every method reads or changes the store in one
 * synchronous step, so concurrent calls cannot interleave within one.
 */
export function createMemoryPlantRepository(record?: (created: PlantCreated) => void): PlantRepository {
  const store = createMemoryPlantStore(record);
  return {
    insertIfAbsent: async (plant, created) => store.insertIfAbsent(plant, created),
    findById: async (id) => store.findById(id),
    listAfter: async (after, limit) => store.listAfter(after, limit),
    deleteById: async (id) => store.deleteById(id),
  };
}
