import type { PlantEventOutbox } from './plant-event-outbox.port.ts';
import type { PlantRepository } from './plant-repository.port.ts';

/** A PlantRepository together with the life cycle of the storage that holds it. */
export interface PlantStorage {
  readonly plants: PlantRepository;
  /** The events recorded with the plants, when the storage was opened to keep them. */
  readonly events?: PlantEventOutbox | undefined;
  /** Resolves when storage answers; rejects with StorageUnavailableError when it does not. */
  checkReady(): Promise<void>;
  /** Releases connections and files. Idempotent. */
  close(): Promise<void>;
}
