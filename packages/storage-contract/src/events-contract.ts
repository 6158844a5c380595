import { type Span, trace } from '@opentelemetry/api';
import { type NewPlant, type PlantStorage, plantCreated, type RecordedEvent } from '@plant-store/domain';
import { randomPlantId, startInMemoryTracing } from '@plant-store/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** Takes every event the outbox holds now, oldest first. */
async function drain(storage: PlantStorage): Promise<RecordedEvent[]> {
  const events = storage.events;
  if (!events) throw new Error('the store was opened without events');
  const taken: RecordedEvent[] = [];
  while ((await events.relay(7, async (batch) => void taken.push(...batch))) > 0);
  return taken;
}

const plantsOf = (events: readonly RecordedEvent[]) => events.map((recorded) => recorded.event.plant);

/** The traceparent of a span's context, as W3C propagation writes it (sampled). */
const traceparentOf = (span: Span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

/** Creates `plant` with its event inside a span of its own, and answers that span. */
async function createInSpan(storage: PlantStorage, plant: NewPlant): Promise<Span> {
  return trace.getTracer('@plant-store/storage-contract').startActiveSpan('create', async (span) => {
    try {
      await storage.plants.insertIfAbsent(plant, plantCreated(plant));
      return span;
    } finally {
      span.end();
    }
  });
}

/**
 * The outbox: an insert that stores a plant records its event in the same step, nothing else does,
 * and a relay hands each event on exactly once unless its forward fails.
 */
export function describeEventsContract(open: () => Promise<PlantStorage>, durable: boolean): void {
  let storage: PlantStorage | undefined;
  const store = (): PlantStorage => {
    if (!storage) throw new Error('the store did not open');
    return storage;
  };
  beforeAll(async () => {
    storage = await open();
    await drain(storage);
  });
  afterAll(async () => {
    await storage?.close();
  });

  it('when a plant is created with its event, then the outbox holds exactly that event, once', async () => {
    const plant = { id: randomPlantId(), name: 'Monstera', tag: 'aroid' };
    const before = new Date(Date.now() - 60_000);
    await expect(store().plants.insertIfAbsent(plant, plantCreated(plant))).resolves.toStrictEqual({
      inserted: true,
    });
    await expect(store().events?.oldestRecordedAt()).resolves.toBeInstanceOf(Date);
    const events = await drain(store());
    expect(events.map((recorded) => recorded.event)).toStrictEqual([{ type: 'plant.created', plant }]);
    expect(events[0]?.id).toMatch(/^\S{8,}$/);
    expect(events[0]?.recordedAt.getTime()).toBeGreaterThan(before.getTime());
    await expect(drain(store())).resolves.toStrictEqual([]);
    await expect(store().events?.oldestRecordedAt()).resolves.toBeUndefined();
  });

  it('when a name and tag begin with U+FEFF, then the event carries them exactly', async () => {
    const plant = { id: randomPlantId(), name: '\ufeffMonstera', tag: '\ufeff' };
    await store().plants.insertIfAbsent(plant, plantCreated(plant));
    expect(plantsOf(await drain(store()))).toStrictEqual([plant]);
  });

  it('when an insert stores nothing (a retry, another content, no event given), then nothing is recorded', async () => {
    const plant = { id: randomPlantId(), name: 'Fern' };
    await store().plants.insertIfAbsent(plant, plantCreated(plant));
    await drain(store());
    await store().plants.insertIfAbsent(plant, plantCreated(plant));
    const other = { id: plant.id, name: 'Palm', tag: 'x' };
    await expect(store().plants.insertIfAbsent(other, plantCreated(other))).resolves.toStrictEqual({
      inserted: false,
      existing: plant,
    });
    const silent = { id: randomPlantId(), name: 'no event' };
    await store().plants.insertIfAbsent(silent);
    await expect(drain(store())).resolves.toStrictEqual([]);
  });

  it('when many creates race, some for one id, then exactly one event per plant stored', async () => {
    const shared = randomPlantId();
    const attempts = [
      ...Array.from({ length: 40 }, (_, i) => ({ id: randomPlantId(), name: `plant ${i}` })),
      ...Array.from({ length: 10 }, (_, i) => ({ id: shared, name: `rival ${i}` })),
    ];
    const outcomes = await Promise.all(
      attempts.map((plant) => store().plants.insertIfAbsent(plant, plantCreated(plant))),
    );
    const stored = attempts.filter((_, index) => outcomes[index]?.inserted);
    expect(stored).toHaveLength(41);
    const recorded = plantsOf(await drain(store()));
    const byId = (a: { id: bigint }, b: { id: bigint }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    expect([...recorded].sort(byId)).toStrictEqual([...stored].sort(byId));
  });

  it('when a plant is changed or deleted, then nothing is recorded: events tell of creation only', async () => {
    const plant = { id: randomPlantId(), name: 'Fern', tag: 'aroid' };
    await store().plants.insertIfAbsent(plant, plantCreated(plant));
    await drain(store());
    await store().plants.update(plant.id, { name: 'Palm', tag: null });
    await store().plants.update(plant.id, { tag: 'x' }, { name: 'Palm' });
    await store().plants.deleteById(plant.id, { name: 'Palm', tag: 'x' });
    await expect(drain(store())).resolves.toStrictEqual([]);
  });

  it('when tracing is off, then an event carries no trace context', async () => {
    const plant = { id: randomPlantId(), name: 'untraced' };
    await store().plants.insertIfAbsent(plant, plantCreated(plant));
    const [event] = await drain(store());
    expect(event?.event.plant).toStrictEqual(plant);
    expect(event?.traceContext).toBeUndefined();
  });

  it('when a plant is created under a span, then its event carries that span as its traceparent', async () => {
    const tracing = startInMemoryTracing();
    try {
      const plant = { id: randomPlantId(), name: 'traced', tag: 'x' };
      const span = await createInSpan(store(), plant);
      const events = await drain(store());
      expect(plantsOf(events)).toStrictEqual([plant]);
      expect(events[0]?.traceContext).toStrictEqual({ traceparent: traceparentOf(span) });
    } finally {
      await tracing.stop();
    }
  });

  it('when creates race, each under a span of its own, then each event carries its own create, not another', async () => {
    const tracing = startInMemoryTracing();
    try {
      const plants = Array.from({ length: 12 }, (_, i) => ({ id: randomPlantId(), name: `traced ${i}` }));
      const spans = await Promise.all(plants.map((plant) => createInSpan(store(), plant)));
      const expected = new Map(plants.map((plant, index) => [plant.id, traceparentOf(spans[index] as Span)]));
      const events = await drain(store());
      expect(events).toHaveLength(plants.length);
      for (const event of events) {
        expect(event.traceContext).toStrictEqual({ traceparent: expected.get(event.event.plant.id) });
      }
    } finally {
      await tracing.stop();
    }
  });

  it('when a forward fails, then its events stay, and the next relay hands on the same events', async () => {
    const plants = Array.from({ length: 3 }, (_, i) => ({ id: randomPlantId(), name: `kept ${i}` }));
    for (const plant of plants) await store().plants.insertIfAbsent(plant, plantCreated(plant));
    const failure = new Error('the queue is down');
    let offered: readonly RecordedEvent[] = [];
    await expect(
      store().events?.relay(10, async (batch) => {
        offered = batch;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(plantsOf(offered)).toStrictEqual(plants);
    await expect(drain(store())).resolves.toStrictEqual(offered);
  });

  it('when relays run at once, then every event is handed on by exactly one of them', async () => {
    const plants = Array.from({ length: 30 }, (_, i) => ({ id: randomPlantId(), name: `shared ${i}` }));
    await Promise.all(plants.map((plant) => store().plants.insertIfAbsent(plant, plantCreated(plant))));
    const seen: RecordedEvent[] = [];
    const relayUntilEmpty = async (): Promise<void> => {
      while (
        ((await store().events?.relay(4, async (batch) => {
          // Held open a moment, so that the other relays run while these rows are taken.
          await new Promise((resolve) => setTimeout(resolve, 2));
          seen.push(...batch);
        })) ?? 0) > 0
      );
    };
    await Promise.all([relayUntilEmpty(), relayUntilEmpty(), relayUntilEmpty()]);
    expect(new Set(seen.map((recorded) => recorded.id)).size).toBe(seen.length);
    expect(new Set(plantsOf(seen).map((plant) => plant.id))).toStrictEqual(
      new Set(plants.map((plant) => plant.id)),
    );
  });

  if (durable) {
    it('when the store is closed and reopened, then events not yet handed on are still there', async () => {
      const plant = { id: randomPlantId(), name: 'survivor' };
      await store().plants.insertIfAbsent(plant, plantCreated(plant));
      await store().close();
      storage = await open();
      expect(plantsOf(await drain(store()))).toStrictEqual([plant]);
    });
  }
}

/** A store opened without events records none and has no outbox. */
export function describeNoEventsContract(open: () => Promise<PlantStorage>): void {
  it('when the store is opened without events, then it has no outbox', async () => {
    const storage = await open();
    try {
      expect(storage.events).toBeUndefined();
      const plant = { id: randomPlantId(), name: 'quiet' };
      await expect(storage.plants.insertIfAbsent(plant, plantCreated(plant))).resolves.toStrictEqual({
        inserted: true,
      });
    } finally {
      await storage.close();
    }
  });
}
