import {
  type InsertOutcome,
  type NewPlant,
  newPlant,
  type PlantCreated,
  type PlantRepository,
} from '@plant-store/domain';
import { createSortedById } from './sorted-by-id.ts';

/** A plant as the store keeps it: with the UTF-8 bytes of its name and tag, counted once, for pages. */
interface StoredPlant extends NewPlant {
  readonly bytes: number;
}

function stored(plant: NewPlant): StoredPlant {
  const bytes = Buffer.byteLength(plant.name) + (plant.tag === undefined ? 0 : Buffer.byteLength(plant.tag));
  return { ...copyOf(plant), bytes };
}

// Callers own the objects they pass and get: copying keeps the store immune to their later changes.
function copyOf(plant: NewPlant): NewPlant {
  return newPlant(plant.id, plant.name, plant.tag);
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
  const plants = new Map<bigint, StoredPlant>();
  const ordered = createSortedById<StoredPlant>();
  return {
    insertIfAbsent(plant, created): InsertOutcome {
      const existing = plants.get(plant.id);
      if (existing) return { inserted: false, existing: copyOf(existing) };
      // The event first: if it cannot be recorded (it throws), the plant is not stored either.
      if (created && record) record({ type: created.type, plant: copyOf(created.plant) });
      const kept = stored(plant);
      plants.set(plant.id, kept);
      ordered.add(kept);
      return { inserted: true };
    },
    findById(id) {
      const plant = plants.get(id);
      return plant && copyOf(plant);
    },
    listAfter(after, limit, maxBytes = Number.POSITIVE_INFINITY) {
      // One more than the page, to know whether others follow.
      const following = ordered.after(after, limit + 1);
      const page: NewPlant[] = [];
      let bytes = 0;
      for (const plant of following) {
        if (page.length === limit || (page.length > 0 && bytes + plant.bytes > maxBytes)) break;
        bytes += plant.bytes;
        page.push(copyOf(plant));
      }
      return { plants: page, more: following.length > page.length };
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
    listAfter: async (after, limit, maxBytes) => store.listAfter(after, limit, maxBytes),
    deleteById: async (id) => store.deleteById(id),
  };
}
