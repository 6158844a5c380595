import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type PlantStorage, plantCreated } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { eventually, newSecret, startTestReceiver, type TestReceiver } from '@plant-store/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookDispatcher, WebhookObserver } from './deliveries.ts';
import { startMemoryDispatcher } from './memory-dispatcher.ts';
import { parseWebhookSecrets } from './secrets.ts';

const secret = newSecret();
const keys = parseWebhookSecrets(secret);
const errors: unknown[] = [];
const silent: WebhookObserver = {
  delivered: () => {},
  attemptFailed: () => {},
  gone: () => {},
  dead: () => {},
  abandoned: () => {},
};

const receivers: TestReceiver[] = [];
const running: WebhookDispatcher[] = [];
afterEach(async () => {
  for (const dispatcher of running.splice(0)) await dispatcher.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
  expect(errors.splice(0)).toStrictEqual([]);
});

/** A receiver that holds every request open until `answerAll`, then answers them and the next ones 204. */
async function holdingReceiver() {
  const receiver = await startTestReceiver([secret]);
  receivers.push(receiver);
  const held: ServerResponse[] = [];
  let holding = true;
  receiver.answer = (_request, response) => {
    if (holding) held.push(response);
    else response.writeHead(204).end();
  };
  return {
    receiver,
    answerAll: () => {
      holding = false;
      for (const response of held.splice(0)) response.writeHead(204).end();
    },
  };
}

function start(storage: PlantStorage, urls: readonly string[], maxEventsInMemory: number, schedule = [50]) {
  if (!storage.events) throw new Error('opened without events');
  const dispatcher = startMemoryDispatcher(
    storage.events,
    { urls, keys, schedule, timeoutMs: 600_000, maxEventsInMemory },
    silent,
    (error) => void errors.push(error),
  );
  running.push(dispatcher);
  return dispatcher;
}

async function create(storage: PlantStorage, count: number): Promise<void> {
  for (let id = 1; id <= count; id += 1) {
    const plant = { id: BigInt(id), name: `plant ${id}` };
    await storage.plants.insertIfAbsent(plant, plantCreated(plant));
  }
}

// Generous: 150,000 events are created and queued while every package's tests share two cores.
describe('the in-memory dispatcher, bounded', { timeout: 120_000 }, () => {
  it('when 150,000 events wait for a receiver that does not answer, then the backlog still reads the oldest of them', async () => {
    const count = 150_000;
    const { receiver } = await holdingReceiver();
    const storage = openMemoryPlantStorage({ events: true, maxWaitingEvents: count });
    const before = Date.now();
    await create(storage, count);
    const dispatcher = start(storage, [receiver.url], count);
    // Every event moved out of the outbox: all of them wait in the dispatcher.
    await eventually(async () => (await storage.events?.oldestRecordedAt()) === undefined, 'outbox empty');
    const { dead, oldestUndeliveredAt } = await dispatcher.backlog();
    expect(dead).toBe(0);
    expect(oldestUndeliveredAt?.getTime()).toBeGreaterThanOrEqual(before);
    expect(oldestUndeliveredAt?.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('when the receivers do not answer, then it holds the deliveries of maxEventsInMemory events and leaves the rest in the outbox; once they answer, every event arrives once', async () => {
    const hooks = [await holdingReceiver(), await holdingReceiver()];
    const storage = openMemoryPlantStorage({ events: true });
    await create(storage, 20);
    const dispatcher = start(
      storage,
      hooks.map((hook) => hook.receiver.url),
      5,
    );
    await eventually(
      () => hooks.every((hook) => hook.receiver.received.length === 5),
      'five events at each receiver',
    );
    // Longer than the relay's tick: had it room, it would have taken more by now.
    await sleep(1_500);
    for (const { receiver } of hooks) expect(receiver.received).toHaveLength(5);
    await expect(storage.events?.oldestRecordedAt()).resolves.toBeInstanceOf(Date);

    for (const hook of hooks) hook.answerAll();
    await eventually(
      () => hooks.every((hook) => hook.receiver.received.length === 20),
      'every event at each receiver',
    );
    // Nothing waits and no attempt is under way: no delivery can come after.
    await eventually(
      async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
      'nothing left undelivered',
    );
    for (const { receiver } of hooks) {
      expect(receiver.received).toHaveLength(20);
      expect(new Set(receiver.received.map((entry) => entry.body)).size).toBe(20);
    }
    await expect(storage.events?.oldestRecordedAt()).resolves.toBeUndefined();
  });

  it('when more deliveries die than maxEventsInMemory, then each is counted as dead (none is held: nothing outside the process could redeliver it)', async () => {
    const receiver = await startTestReceiver([secret]);
    receivers.push(receiver);
    receiver.answer = (_request, response) => void response.writeHead(500).end();
    const storage = openMemoryPlantStorage({ events: true });
    await create(storage, 5);
    // No retry: the first failure is the last.
    const dispatcher = start(storage, [receiver.url], 3, []);
    await eventually(() => receiver.received.length === 5, 'one attempt of each');
    await eventually(
      async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
      'none pending',
    );
    expect((await dispatcher.backlog()).dead).toBe(5);
  });
});
