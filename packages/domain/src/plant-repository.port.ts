import type { NewPlant } from './plant.ts';

/** What an insert found: the plant is now stored, or the plant already stored under its id. */
export type InsertOutcome =
  | { readonly inserted: true }
  | { readonly inserted: false; readonly existing: NewPlant };

/** Where plants are kept. Every adapter proves itself against @plant-store/storage-contract. */
export interface PlantRepository {
  /**
   * Stores the plant unless a plant with its id is stored already, in one atomic step: of
   * concurrent calls for one id exactly one inserts, and the others get what it stored.
   * Resolves only once the plant is durable, as far as the adapter promises durability.
   * Rejects with StorageUnavailableError when storage cannot be reached.
   */
  insertIfAbsent(plant: NewPlant): Promise<InsertOutcome>;

  /** The plant stored under this id, exactly as it was stored, or undefined. */
  findById(id: bigint): Promise<NewPlant | undefined>;
}
