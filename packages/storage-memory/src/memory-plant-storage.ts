import { randomUUID } from 'node:crypto';
import {
  type PlantEventOutbox,
  type PlantRepository,
  type PlantStorage,
  type RecordedEvent,
  StorageUnavailableError,
} from '@plant-store/domain';
import { createMemoryPlantStore } from './memory-plant-repository.ts';

export interface MemoryPlantStorageOptions {
  /** Keep the event of every plant created, for `events` to hand on. Default: off. */
  readonly events?: boolean;
}

/**
 * An outbox in memory: events wait in the order they were recorded. A relay takes the oldest; if its
 * `forward` rejects they are put back in front, so nothing is lost while the process lives.
 */
function createMemoryOutbox(ensureOpen: () => void): {
  readonly outbox: PlantEventOutbox<undefined>;
  record(event: RecordedEvent['event']): void;
} {
  let waiting: RecordedEvent[] = [];
  return {
    record(event) {
      waiting.push({ id: randomUUID(), recordedAt: new Date(), event });
    },
    outbox: {
      async relay(limit, forward) {
        ensureOpen();
        const taken = waiting.slice(0, limit);
        if (taken.length === 0) return 0;
        waiting = waiting.slice(taken.length);
        try {
          await forward(taken, undefined);
        } catch (error) {
          waiting = [...taken, ...waiting];
          throw error;
        }
        return taken.length;
      },
      async oldestRecordedAt() {
        ensureOpen();
        return waiting[0]?.recordedAt;
      },
    },
  };
}

/**
 * A PlantStorage in memory. Once closed it answers like any closed storage, with
 * StorageUnavailableError, so callers see the same life cycle whichever adapter they run on.
 */
export function openMemoryPlantStorage(options: MemoryPlantStorageOptions = {}): PlantStorage {
  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new StorageUnavailableError('the in-memory plant storage is closed');
  };
  const events = options.events ? createMemoryOutbox(ensureOpen) : undefined;
  const repository = createMemoryPlantStore(events?.record);

  const plants: PlantRepository = {
    async insertIfAbsent(plant, created) {
      ensureOpen();
      return repository.insertIfAbsent(plant, created);
    },
    async findById(id) {
      ensureOpen();
      return repository.findById(id);
    },
    async listAfter(after, limit) {
      ensureOpen();
      return repository.listAfter(after, limit);
    },
    async deleteById(id) {
      ensureOpen();
      return repository.deleteById(id);
    },
  };

  return {
    plants,
    events: events?.outbox,
    async checkReady() {
      ensureOpen();
    },
    async close() {
      closed = true;
    },
  };
}
