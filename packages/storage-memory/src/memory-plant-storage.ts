import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
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
  /**
   * With `events`: at most this many events wait in the outbox (default 10,000). Creating a plant
   * while it is full stores nothing and throws StorageUnavailableError: an event that cannot be kept
   * cannot be promised.
   */
  readonly maxWaitingEvents?: number | undefined;
}

const DEFAULT_MAX_WAITING_EVENTS = 10_000;

function hasAny(carrier: Record<string, string>): boolean {
  for (const _ in carrier) return true;
  return false;
}

/**
 * An outbox in memory: events wait in the order they were recorded, at most `capacity` of them. A
 * relay takes the oldest; if its `forward` rejects they are put back in front, so nothing is lost
 * while the process lives.
 */
function createMemoryOutbox(
  ensureOpen: () => void,
  capacity: number,
): {
  readonly outbox: PlantEventOutbox;
  record(event: RecordedEvent['event']): void;
} {
  // waiting[head] is the oldest: taking from the front moves nothing until the taken part is compacted.
  let waiting: RecordedEvent[] = [];
  let head = 0;
  return {
    record(event) {
      if (waiting.length - head >= capacity) {
        throw new StorageUnavailableError(
          `${capacity} events are waiting in memory for their webhook delivery: no more can be kept`,
        );
      }
      // Recorded in the create's own synchronous step: the active context is the caller's.
      const traceContext: Record<string, string> = {};
      propagation.inject(context.active(), traceContext);
      const recorded: RecordedEvent = { id: randomUUID(), recordedAt: new Date(), event };
      waiting.push(hasAny(traceContext) ? { ...recorded, traceContext } : recorded);
    },
    outbox: {
      async relay(limit, forward) {
        ensureOpen();
        const taken = waiting.slice(head, head + limit);
        if (taken.length === 0) return 0;
        head += taken.length;
        try {
          await forward(taken);
        } catch (error) {
          // Back in front of what is left, whatever other relays took meanwhile.
          waiting = [...taken, ...waiting.slice(head)];
          head = 0;
          throw error;
        }
        if (head * 2 >= waiting.length) {
          waiting = waiting.slice(head);
          head = 0;
        }
        return taken.length;
      },
      async oldestRecordedAt() {
        ensureOpen();
        return waiting[head]?.recordedAt;
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
  const events = options.events
    ? createMemoryOutbox(ensureOpen, options.maxWaitingEvents ?? DEFAULT_MAX_WAITING_EVENTS)
    : undefined;
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
    async listAfter(after, limit, maxBytes, tag) {
      ensureOpen();
      return repository.listAfter(after, limit, maxBytes, tag);
    },
    async update(id, change, expected) {
      ensureOpen();
      return repository.update(id, change, expected);
    },
    async deleteById(id, expected) {
      ensureOpen();
      return repository.deleteById(id, expected);
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
