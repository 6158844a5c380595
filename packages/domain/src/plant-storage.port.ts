import type { PlantRepository } from './plant-repository.port.ts';

/** A PlantRepository together with the life cycle of the storage that holds it. */
export interface PlantStorage {
  readonly plants: PlantRepository;
  /** Resolves when storage answers; rejects with StorageUnavailableError when it does not. */
  checkReady(): Promise<void>;
  /** Releases connections and files. Idempotent. */
  close(): Promise<void>;
}
