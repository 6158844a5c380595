import { setTimeout as sleep } from 'node:timers/promises';
import { type PlantStorage, plantCreated } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { openPglitePlantStorage, openPostgresPlantStorage } from '@plant-store/storage-postgres';
import {
  createTestSchema,
  EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  eventually,
  newSecret,
  provideTestPostgres,
  randomPlantId,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
} from '@plant-store/test-support';
import { fromPglite, PgBoss } from 'pg-boss';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookConfig, WebhookDispatcher, WebhookObserver } from './deliveries.ts';
import { startMemoryDispatcher } from './memory-dispatcher.ts';
import {
  DELIVERY_QUEUE,
  jobQueueSchema,
  redeliverDeadWebhooks,
  startPgBossDispatcher,
} from './pg-boss-dispatcher.ts';
import { parseWebhookSecrets } from './secrets.ts';

/** Counts what the dispatcher reported, as /metrics does. */
function countingObserver() {
  const counts = { delivered: 0, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 };
  const observer: WebhookObserver = {
    delivered: () => void counts.delivered++,
    attemptFailed: () => void counts.attemptsFailed++,
    gone: () => void counts.gone++,
    dead: () => void counts.dead++,
    abandoned: () => void counts.abandoned++,
  };
  return { counts, observer };
}

type Start = (
  storage: PlantStorage,
  config: WebhookConfig,
  observer: WebhookObserver,
) => Promise<WebhookDispatcher>;

interface Harness {
  open(): Promise<PlantStorage>;
  start: Start;
  /**
   * The job queue on the storage's database, for a test to change (a pg-boss of its own); absent in
   * memory. Durable: another dispatcher started on the same storage takes up its work.
   */
  queue?: (storage: PlantStorage) => PgBoss;
  /** The operator's redelivery of the dead (pnpm webhooks:redeliver); absent in memory, where there is none. */
  redeliver?: (storage: PlantStorage) => Promise<number>;
}

/** Runs `change` on the storage's job queue through a pg-boss of the test's own. */
async function onQueue(harness: Harness, storage: PlantStorage, change: (boss: PgBoss) => Promise<void>) {
  const boss = harness.queue?.(storage);
  if (!boss) throw new Error('no queue in this harness');
  boss.on('error', onError);
  await boss.start();
  try {
    await change(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

const errors: unknown[] = [];
const OPEN_TIMEOUT_MS = 120_000;
const onError = (error: unknown) => void errors.push(error);

function describeDispatcher(name: string, harness: Harness): void {
  // Each test opens a storage of its own: with pg-boss on PGlite, a start of embedded PostgreSQL.
  describe(`webhook dispatcher: ${name}`, { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
    const secret = newSecret();
    const keys = parseWebhookSecrets(secret);
    const running: { storage: PlantStorage; dispatcher: WebhookDispatcher }[] = [];
    const receivers: TestReceiver[] = [];
    afterEach(async () => {
      await opened?.close();
      for (const { dispatcher, storage } of running.splice(0)) {
        await dispatcher.stop();
        await storage.close();
      }
      for (const receiver of receivers.splice(0)) await receiver.close();
      expect(errors.splice(0)).toStrictEqual([]);
    });

    // Opened before each test, apart from its time: PGlite compiles its WebAssembly on the first open
    // of a process, which takes seconds alone and far longer while every package's tests run at once.
    let opened: PlantStorage | undefined;
    beforeEach(async () => {
      opened = await harness.open();
    }, OPEN_TIMEOUT_MS);

    async function setUp(urls: number, schedule: number[], timeoutMs = 2_000) {
      const hooks = await Promise.all(Array.from({ length: urls }, () => startTestReceiver([secret])));
      receivers.push(...hooks);
      const storage = opened as PlantStorage;
      opened = undefined;
      const { counts, observer } = countingObserver();
      const config = { urls: hooks.map((hook) => hook.url), keys, schedule, timeoutMs };
      const dispatcher = await harness.start(storage, config, observer);
      running.push({ storage, dispatcher });
      const create = async (plant: { id: bigint; name: string; tag?: string }) => {
        await storage.plants.insertIfAbsent(plant, plantCreated(plant));
        dispatcher.kick();
      };
      return { hooks, storage, dispatcher, counts, create, config };
    }

    it('when plants are created, then every URL gets each one once, exactly, verified by standardwebhooks', async () => {
      const { hooks, create, counts, dispatcher } = await setUp(2, [50]);
      const plants = [
        { id: 2n ** 62n + randomPlantId() / 4n, name: 'Monstera', tag: 'aroid' },
        { id: -(2n ** 63n), name: '\ufeffmin, a U+FEFF first' },
        { id: randomPlantId(), name: '  Cafe\u0301 🌵 "quoted" ', tag: '' },
      ];
      for (const plant of plants) await create(plant);
      await eventually(() => hooks.every((hook) => hook.received.length >= 3), 'three deliveries per URL');
      await sleep(200);
      for (const hook of hooks) {
        expect(hook.received).toHaveLength(3);
        expect(hook.verified()).toHaveLength(3);
        const bodies = hook.received.map((entry) => entry.body).sort();
        const expected = plants
          .map(({ id, name, tag }) =>
            tag === undefined
              ? `{"id":${id},"name":${JSON.stringify(name)}}`
              : `{"id":${id},"name":${JSON.stringify(name)},"tag":${JSON.stringify(tag)}}`,
          )
          .sort();
        expect(bodies).toStrictEqual(expected);
        expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(3);
      }
      // One event, one webhook-id, whichever URL it goes to.
      expect(new Set(hooks[0]?.received.map((entry) => entry.id))).toStrictEqual(
        new Set(hooks[1]?.received.map((entry) => entry.id)),
      );
      expect(counts).toStrictEqual({ delivered: 6, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 });
      await eventually(
        async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
        'nothing left undelivered',
      );
    });

    it('when the receiver fails twice, then the third attempt delivers, with the same webhook-id each time', async () => {
      const { hooks, create, counts, dispatcher } = await setUp(1, [50, 50, 50]);
      const hook = hooks[0] as TestReceiver;
      let calls = 0;
      hook.answer = (_request, response) => {
        calls += 1;
        response.writeHead(calls <= 2 ? 500 : 200).end();
      };
      await create({ id: randomPlantId(), name: 'patience' });
      await eventually(() => counts.delivered === 1, 'delivered on the third attempt');
      expect(hook.received).toHaveLength(3);
      expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(1);
      expect(hook.verified()).toHaveLength(3);
      expect(counts).toStrictEqual({ delivered: 1, attemptsFailed: 2, gone: 0, dead: 0, abandoned: 0 });
      expect((await dispatcher.backlog()).dead).toBe(0);
    });

    it('when one URL answers 410, then that URL gets no more of the event and the others still get it', async () => {
      const { hooks, create, counts } = await setUp(2, [50, 50]);
      const [gone, fine] = hooks as [TestReceiver, TestReceiver];
      gone.answer = (_request, response) => void response.writeHead(410).end();
      await create({ id: randomPlantId(), name: 'unwanted' });
      await eventually(() => counts.gone === 1 && counts.delivered === 1, '410 at one URL, 2xx at the other');
      await sleep(300);
      expect(gone.received).toHaveLength(1);
      expect(fine.received).toHaveLength(1);
      expect(counts.dead).toBe(0);
    });

    it('when every attempt fails, then the delivery is dead and counted', async () => {
      const { hooks, create, counts, dispatcher } = await setUp(1, [30, 30]);
      const hook = hooks[0] as TestReceiver;
      hook.answer = (_request, response) => void response.writeHead(500).end();
      const plant = { id: randomPlantId(), name: 'stubborn' };
      await create(plant);
      await eventually(() => counts.dead === 1, 'dead after three attempts');
      await eventually(
        async () => (await dispatcher.backlog()).dead === 1,
        'one dead delivery in the backlog',
      );
      expect(hook.received).toHaveLength(3);
      expect(counts.attemptsFailed).toBe(3);
    });

    const { redeliver } = harness;
    if (redeliver)
      it('when an operator redelivers the dead deliveries (pnpm webhooks:redeliver), then each is sent again, with its webhook-id, until delivered', async () => {
        const { hooks, create, counts, dispatcher, storage } = await setUp(1, [30, 30]);
        const hook = hooks[0] as TestReceiver;
        hook.answer = (_request, response) => void response.writeHead(500).end();
        const plant = { id: randomPlantId(), name: 'stubborn' };
        await create(plant);
        await eventually(
          async () => (await dispatcher.backlog()).dead === 1,
          'one dead delivery in the backlog',
        );

        hook.answer = (_request, response) => void response.writeHead(204).end();
        await expect(redeliver(storage)).resolves.toBe(1);
        await eventually(() => counts.delivered === 1, 'delivered once redelivered');
        expect(hook.received).toHaveLength(4);
        expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(1);
        expect(hook.received[3]?.body).toBe(`{"id":${plant.id},"name":"stubborn"}`);
        // The observer hears of the delivery when the receiver answers; the queue completes the job
        // after the batch's handler returns, so the backlog empties a moment later, not at once.
        await eventually(
          async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
          'nothing left undelivered',
        );
        expect(await dispatcher.backlog()).toStrictEqual({ dead: 0, oldestUndeliveredAt: undefined });
      });

    it('when the receiver answers 503 with Retry-After, then the next attempt waits that long', async () => {
      // Planned: 10 ms. The receiver asks for a second, within the schedule's longest wait (5 s).
      const { hooks, create, counts } = await setUp(1, [10, 5_000]);
      const hook = hooks[0] as TestReceiver;
      const at: number[] = [];
      hook.answer = (_request, response) => {
        at.push(performance.now());
        if (at.length === 1) response.writeHead(503, { 'retry-after': '1' }).end();
        else response.writeHead(200).end();
      };
      await create({ id: randomPlantId(), name: 'later' });
      await eventually(() => counts.delivered === 1, 'delivered after Retry-After');
      expect(at).toHaveLength(2);
      expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(950);
      expect(counts.attemptsFailed).toBe(1);
    });

    it('while the receiver is down, then the oldest undelivered event has an age, and none once delivered', async () => {
      const { hooks, create, dispatcher, counts } = await setUp(1, [100, 100, 100, 100, 100, 100]);
      const hook = hooks[0] as TestReceiver;
      let down = true;
      hook.answer = (_request, response) => void response.writeHead(down ? 502 : 200).end();
      const before = Date.now();
      await create({ id: randomPlantId(), name: 'waiting' });
      await eventually(() => counts.attemptsFailed >= 1, 'a failed attempt');
      const { oldestUndeliveredAt } = await dispatcher.backlog();
      expect(oldestUndeliveredAt?.getTime()).toBeGreaterThanOrEqual(before - 1_000);
      down = false;
      await eventually(() => counts.delivered === 1, 'delivered once back');
      await eventually(
        async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
        'nothing left undelivered',
      );
    });

    it('when stop is given a grace while an attempt hangs, then it cuts the request off once the grace is spent and counts the attempt abandoned, not failed', async () => {
      // An attempt would wait ten minutes for this receiver: stop resolving at all shows it did not wait.
      const { hooks, create, counts, dispatcher } = await setUp(1, [50], 600_000);
      const hook = hooks[0] as TestReceiver;
      let cutOff = 0;
      hook.answer = (_request, response) => void response.once('close', () => cutOff++);
      await create({ id: randomPlantId(), name: 'held' });
      await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
      await dispatcher.stop(100);
      await eventually(() => cutOff === 1, 'the held request closed');
      expect(counts).toStrictEqual({ delivered: 0, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 1 });
    });

    // In memory, events end with the process (DESIGN.md): only a queue on a database is started again.
    if (harness.queue)
      it('when an attempt was abandoned at stop, then a dispatcher started later on the same database makes it again, same webhook-id', async () => {
        const { hooks, create, dispatcher, storage, config } = await setUp(1, [50], 600_000);
        const hook = hooks[0] as TestReceiver;
        let hanging = true;
        hook.answer = (_request, response) => {
          if (!hanging) response.writeHead(204).end();
        };
        await create({ id: randomPlantId(), name: 'abandoned' });
        await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
        await dispatcher.stop(0);
        hanging = false;
        const later = countingObserver();
        // Stopped before the first entry closes the storage they share.
        running.unshift({ storage, dispatcher: await harness.start(storage, config, later.observer) });
        // pg-boss retries the job the stop failed 5 to 10 s later.
        await eventually(() => later.counts.delivered === 1, 'delivered by the next dispatcher', 60_000);
        expect(hook.received).toHaveLength(2);
        expect(hook.received[1]?.id).toBe(hook.received[0]?.id);
        expect(hook.verified()).toHaveLength(2);
      });

    if (harness.queue && redeliver)
      it("when an attempt is abandoned after pg-boss's own retries are spent, then the delivery is kept as dead, not dropped", async () => {
        const { hooks, create, dispatcher, storage, config } = await setUp(1, [50], 600_000);
        const hook = hooks[0] as TestReceiver;
        let hanging = true;
        hook.answer = (_request, response) => {
          if (!hanging) response.writeHead(204).end();
        };
        // Jobs queued from now on have no retry of pg-boss's left: the first failure is their last.
        await onQueue(harness, storage, (boss) => boss.updateQueue(DELIVERY_QUEUE, { retryLimit: 0 }));
        await create({ id: randomPlantId(), name: 'out of retries' });
        await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
        await dispatcher.stop(0);

        hanging = false;
        const later = countingObserver();
        const next = await harness.start(storage, config, later.observer);
        running.unshift({ storage, dispatcher: next });
        await eventually(async () => (await next.backlog()).dead === 1, 'one dead delivery');
        await expect(redeliver(storage)).resolves.toBe(1);
        await eventually(() => later.counts.delivered === 1, 'delivered once redelivered');
        expect(hook.received).toHaveLength(2);
        expect(hook.received[1]?.id).toBe(hook.received[0]?.id);
      });
  });
}

describeDispatcher('in memory', {
  open: async () => openMemoryPlantStorage({ events: true }),
  start: async (storage, config, observer) => {
    if (!storage.events) throw new Error('no outbox');
    return startMemoryDispatcher(storage.events, config, observer, onError);
  },
});

describeDispatcher('pg-boss on PGlite', {
  queue: (storage) => {
    const { pglite, schema } = storage as Awaited<ReturnType<typeof openPglitePlantStorage>>;
    return new PgBoss({
      db: fromPglite(pglite),
      backend: 'pglite',
      schema: jobQueueSchema(schema),
      supervise: false,
      schedule: false,
    });
  },
  redeliver: (storage) => {
    const { pglite, schema } = storage as Awaited<ReturnType<typeof openPglitePlantStorage>>;
    return redeliverDeadWebhooks({ kind: 'pglite', pglite }, schema);
  },
  open: () => openPglitePlantStorage({ events: true }),
  start: (storage, config, observer) => {
    const { pglite, schema, events } = storage as Awaited<ReturnType<typeof openPglitePlantStorage>>;
    return startPgBossDispatcher({
      database: { kind: 'pglite', pglite },
      storeSchema: schema,
      outbox: events,
      config,
      observer,
      onError,
    });
  },
});

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

describe.skipIf(!server)(`on a PostgreSQL server (${server?.source ?? 'none'})`, () => {
  // Each test on a schema of its own, and so a job queue of its own: a job a test leaves behind (an
  // attempt abandoned at stop, which pg-boss makes again seconds later) must not be fetched by a later
  // test's dispatcher and sent to that test's closed receiver, where it would fail and go dead there.
  let testSchema: TestPostgres | undefined;
  afterEach(async () => {
    await testSchema?.cleanup();
    testSchema = undefined;
  });
  const connectionString = () => testSchema?.connectionString ?? '';
  describeDispatcher('pg-boss on PostgreSQL', {
    queue: (storage) =>
      new PgBoss({
        connectionString: connectionString(),
        max: 1,
        schema: jobQueueSchema((storage as Awaited<ReturnType<typeof openPostgresPlantStorage>>).schema),
        supervise: false,
        schedule: false,
      }),
    redeliver: (storage) =>
      redeliverDeadWebhooks(
        { kind: 'postgres', connectionString: connectionString() },
        (storage as Awaited<ReturnType<typeof openPostgresPlantStorage>>).schema,
      ),
    open: async () => {
      testSchema = await createTestSchema(server?.connectionString ?? '', "the file's server");
      return openPostgresPlantStorage({ connectionString: testSchema.connectionString, events: true });
    },
    start: (storage, config, observer) => {
      const { schema, events } = storage as Awaited<ReturnType<typeof openPostgresPlantStorage>>;
      return startPgBossDispatcher({
        database: { kind: 'postgres', connectionString: connectionString() },
        storeSchema: schema,
        outbox: events,
        config,
        observer,
        onError,
      });
    },
  });
});
