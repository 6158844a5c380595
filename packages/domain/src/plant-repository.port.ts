import type { NewPlant } from './plant.ts';
import type { PlantCreated } from './plant-created.ts';

/** What an insert found: the plant is now stored, or the plant already stored under its id. */
export type InsertOutcome =
  | { readonly inserted: true }
  | { readonly inserted: false; readonly existing: NewPlant };

/** A page of plants as listAfter found it. */
export interface PlantsFound {
  /** Ascending by id, exactly as stored. */
  readonly plants: NewPlant[];
  /** Whether plants with greater ids than the last of these are stored (when it ran). */
  readonly more: boolean;
}

/** Where plants are kept. Every adapter proves itself against @plant-store/storage-contract. */
export interface PlantRepository {
  /**
   * Stores the plant unless a plant with its id is stored already, in one atomic step: of
   * concurrent calls for one id exactly one inserts, and the others get what it stored.
   * Resolves only once the plant is durable, as far as the adapter promises durability.
   * Rejects with StorageUnavailableError when storage cannot be reached.
   *
   * `created` is the event of this creation: on a storage that keeps events (PlantStorage.events),
   * an insert records it in the same atomic step as the plant (a transactional outbox), and an
   * insert that stores nothing records nothing. Elsewhere it is ignored.
   */
  insertIfAbsent(plant: NewPlant, created?: PlantCreated): Promise<InsertOutcome>;

  /** The plant stored under this id, exactly as it was stored, or undefined. */
  findById(id: bigint): Promise<NewPlant | undefined>;

  /**
   * The plants with ids greater than `after` (from the smallest id when undefined), ascending by id,
   * exactly as stored: at most `limit` of them, and only as many as fit in `maxBytes` of content
   * (the UTF-8 bytes of their names and tags, summed), but always the first one, however large;
   * `more` says whether others follow. A plant past the budget is not read whole. Each call sees the
   * plants stored when it runs; a plant stored for the whole of a walk of pages (each call `after`
   * the last id of the previous, while `more`) is returned exactly once by it. `limit` is a positive
   * integer; `maxBytes` a non-negative one, unbounded when absent.
   */
  listAfter(after: bigint | undefined, limit: number, maxBytes?: number): Promise<PlantsFound>;

  /**
   * Deletes the plant stored under this id, in one atomic step: true when a plant was deleted,
   * false when none was stored. Of concurrent calls for one id, at most one answers true. The id is
   * then free: insertIfAbsent stores any plant under it.
   */
  deleteById(id: bigint): Promise<boolean>;
}
