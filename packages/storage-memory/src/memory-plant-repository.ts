import {
  type ExpectedContent,
  type InsertOutcome,
  type NewPlant,
  newPlant,
  type PlantCreated,
  type PlantRepository,
  type UpdateOutcome,
} from '@plant-store/domain';
import { createSortedById, type SortedById } from './sorted-by-id.ts';

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

/** Whether a stored plant holds the content a conditional write expects ('any': whatever it holds). */
function holds(plant: NewPlant, expected: ExpectedContent | undefined): boolean {
  return (
    expected === undefined ||
    expected === 'any' ||
    (plant.name === expected.name && plant.tag === expected.tag)
  );
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
  // The plants of each tag in id order too, so that a page by tag reads only plants of its tag.
  const byTag = new Map<string, SortedById<StoredPlant>>();

  const addToTag = (plant: StoredPlant): void => {
    if (plant.tag === undefined) return;
    let tagged = byTag.get(plant.tag);
    if (tagged === undefined) {
      tagged = createSortedById<StoredPlant>();
      byTag.set(plant.tag, tagged);
    }
    tagged.add(plant);
  };
  const removeFromTag = (plant: StoredPlant): void => {
    if (plant.tag === undefined) return;
    const tagged = byTag.get(plant.tag);
    tagged?.delete(plant.id);
    // A tag no plant holds any more leaves nothing behind.
    if (tagged?.isEmpty()) byTag.delete(plant.tag);
  };

  return {
    insertIfAbsent(plant, created): InsertOutcome {
      const existing = plants.get(plant.id);
      if (existing) return { inserted: false, existing: copyOf(existing) };
      // The event first: if it cannot be recorded (it throws), the plant is not stored either.
      if (created && record) record({ type: created.type, plant: copyOf(created.plant) });
      const kept = stored(plant);
      plants.set(plant.id, kept);
      ordered.add(kept);
      addToTag(kept);
      return { inserted: true };
    },
    findById(id) {
      const plant = plants.get(id);
      return plant && copyOf(plant);
    },
    update(id, change, expected): UpdateOutcome {
      const current = plants.get(id);
      if (current === undefined) return { outcome: 'absent' };
      if (!holds(current, expected)) return { outcome: 'precondition-failed', current: copyOf(current) };
      const tag = change.tag === undefined ? current.tag : (change.tag ?? undefined);
      const kept = stored(newPlant(id, change.name ?? current.name, tag));
      plants.set(id, kept);
      ordered.replace(kept);
      if (kept.tag !== current.tag) {
        removeFromTag(current);
        addToTag(kept);
      } else if (kept.tag !== undefined) byTag.get(kept.tag)?.replace(kept);
      return { outcome: 'updated', plant: copyOf(kept) };
    },
    listAfter(after, limit, maxBytes = Number.POSITIVE_INFINITY, tag) {
      const index = tag === undefined ? ordered : byTag.get(tag);
      // One more than the page, to know whether others follow.
      const following = index?.after(after, limit + 1) ?? [];
      const page: NewPlant[] = [];
      let bytes = 0;
      for (const plant of following) {
        if (page.length === limit || (page.length > 0 && bytes + plant.bytes > maxBytes)) break;
        bytes += plant.bytes;
        page.push(copyOf(plant));
      }
      return { plants: page, more: following.length > page.length };
    },
    deleteById(id, expected) {
      const current = plants.get(id);
      if (current === undefined || !holds(current, expected)) return false;
      plants.delete(id);
      ordered.delete(id);
      removeFromTag(current);
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
    listAfter: async (after, limit, maxBytes, tag) => store.listAfter(after, limit, maxBytes, tag),
    update: async (id, change, expected) => store.update(id, change, expected),
    deleteById: async (id, expected) => store.deleteById(id, expected),
  };
}
