import { plantCreated, type RecordedEvent, StorageUnavailableError } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import { openMemoryPlantStorage } from './memory-plant-storage.ts';

const plant = (id: number) => ({ id: BigInt(id), name: `plant ${id}` });

function openWithEvents(maxWaitingEvents?: number) {
  const storage = openMemoryPlantStorage({ events: true, maxWaitingEvents });
  const { events } = storage;
  if (!events) throw new Error('opened without events');
  const create = (id: number) => storage.plants.insertIfAbsent(plant(id), plantCreated(plant(id)));
  const relay = async (limit: number): Promise<RecordedEvent[]> => {
    const taken: RecordedEvent[] = [];
    await events.relay(limit, async (batch) => {
      for (const event of batch) taken.push(event);
    });
    return taken;
  };
  return { storage, events, create, relay };
}

const idsOf = (events: readonly RecordedEvent[]) => events.map((recorded) => recorded.event.plant.id);

describe('the in-memory outbox, bounded', { timeout: 120_000 }, () => {
  it('when maxWaitingEvents events wait, then a new plant is refused as storage unavailable, and neither it nor an event is kept', async () => {
    const { storage, create, relay } = openWithEvents(3);
    for (const id of [1, 2, 3]) await expect(create(id)).resolves.toStrictEqual({ inserted: true });
    await expect(create(4)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.plants.findById(4n)).resolves.toBeUndefined();
    expect((await storage.plants.listAfter(undefined, 10)).plants).toHaveLength(3);
    expect(idsOf(await relay(10))).toStrictEqual([1n, 2n, 3n]);
  });

  it('when the outbox is full, then a plant already stored, sent again, is still a retry: nothing is recorded', async () => {
    const { create } = openWithEvents(1);
    await create(1);
    await expect(create(1)).resolves.toStrictEqual({ inserted: false, existing: plant(1) });
  });

  it('when the waiting events are relayed, then creates are accepted again', async () => {
    const { create, relay } = openWithEvents(2);
    await create(1);
    await create(2);
    await expect(create(3)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(idsOf(await relay(1))).toStrictEqual([1n]);
    await expect(create(3)).resolves.toStrictEqual({ inserted: true });
    expect(idsOf(await relay(10))).toStrictEqual([2n, 3n]);
  });

  it('when a forward fails while another relay took later events, then the failed ones wait again, none lost or doubled', async () => {
    const { create, events, relay } = openWithEvents();
    for (let id = 1; id <= 6; id += 1) await create(id);
    let failFirst: (error: Error) => void = () => {};
    const first = events.relay(2, () => new Promise((_resolve, reject) => (failFirst = reject)));
    expect(idsOf(await relay(2))).toStrictEqual([3n, 4n]);
    failFirst(new Error('the queue is down'));
    await expect(first).rejects.toThrow('the queue is down');
    expect(idsOf(await relay(10))).toStrictEqual([1n, 2n, 5n, 6n]);
  });

  it('when 150,000 events are relayed in batches, then each is handed on once, oldest first', async () => {
    const count = 150_000;
    const { create, relay } = openWithEvents(count);
    for (let id = 1; id <= count; id += 1) await create(id);
    const seen: bigint[] = [];
    for (let batch = await relay(500); batch.length > 0; batch = await relay(500)) {
      for (const id of idsOf(batch)) seen.push(id);
    }
    expect(seen).toHaveLength(count);
    expect(seen.every((id, index) => id === BigInt(index + 1))).toBe(true);
  });
});
