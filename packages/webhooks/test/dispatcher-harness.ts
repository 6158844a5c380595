// The storages a webhook dispatcher runs on, and what every test of one sets up and tears down: the
// dispatcher tests and the trace tests describe their cases once and run them on each.
// - in memory;
// - pg-boss on PGlite: each test on a data folder of its own, a copy of one initdb'd once per file;
// - pg-boss on a PostgreSQL server: each test on a schema of its own, and so a job queue of its own.
// A job a test leaves behind (an attempt abandoned at stop, which pg-boss makes again seconds later)
// must never be fetched by a later test's dispatcher and sent to that test's receiver.
import { type PlantEventOutbox, type PlantStorage, plantCreated } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import {
  openPglitePlantStorage,
  openPostgresPlantStorage,
  type PglitePlantStorage,
  type PostgresPlantStorage,
} from '@plant-store/storage-postgres';
import {
  createTestSchema,
  EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  newSecret,
  pgliteDataFolders,
  provideTestPostgres,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
} from '@plant-store/test-support';
import { fromPglite, PgBoss } from 'pg-boss';
import { afterAll, afterEach, beforeEach, describe, expect } from 'vitest';
import type { WebhookConfig, WebhookDispatcher, WebhookObserver } from '../src/index.ts';
import { startMemoryDispatcher } from '../src/memory-dispatcher.ts';
import { jobQueueSchema, redeliverDeadWebhooks, startPgBossDispatcher } from '../src/pg-boss-dispatcher.ts';
import { parseWebhookSecrets } from '../src/secrets.ts';

/** A storage the dispatchers run on. */
export interface DispatcherLeg {
  /** 'in memory', 'pg-boss on PGlite', 'pg-boss on PostgreSQL'. */
  readonly name: string;
  /**
   * pg-boss runs the attempts: in batches, each in its CONSUMER span, and durably, so that a
   * dispatcher started later on the same database takes up the jobs an earlier one left.
   */
  readonly queued: boolean;
}

export interface StartOptions {
  /** How many receivers to start, one URL each. Default 1. */
  readonly urls?: number;
  readonly schedule: number[];
  /** An attempt's timeout. Default 2 s. */
  readonly timeoutMs?: number;
  /** Default: one that hears nothing. */
  readonly observer?: WebhookObserver;
  /** Wraps the storage's outbox before the dispatcher is given it (to watch its relays). */
  readonly outbox?: (outbox: PlantEventOutbox) => PlantEventOutbox;
}

/** A dispatcher started on the test's storage, delivering to receivers of the test's own. */
export interface Dispatching {
  readonly hooks: TestReceiver[];
  readonly storage: PlantStorage;
  readonly dispatcher: WebhookDispatcher;
  readonly config: WebhookConfig;
  /** Stores the plant with its event, as a create does, and wakes the dispatcher. */
  create(plant: { id: bigint; name: string; tag?: string }): Promise<void>;
}

export interface DispatcherTests {
  readonly leg: DispatcherLeg;
  /** Starts a dispatcher on the storage opened for this test (once per test). */
  start(options: StartOptions): Promise<Dispatching>;
  /**
   * Starts another dispatcher on the same storage, as the next process would; it is stopped before
   * the first, which closes the storage they share.
   */
  startAgain(on: Dispatching, observer: WebhookObserver): Promise<WebhookDispatcher>;
  /** Runs `change` on the storage's job queue through a pg-boss of the test's own (queued legs). */
  onQueue(storage: PlantStorage, change: (boss: PgBoss) => Promise<void>): Promise<void>;
  /**
   * The operator's redelivery of the dead (`pnpm webhooks:redeliver`), on a queued leg's storage;
   * absent in memory, where no other process can reach them.
   */
  readonly redeliver?: (storage: PlantStorage) => Promise<number>;
}

export const silentObserver: WebhookObserver = {
  delivered: () => {},
  attemptFailed: () => {},
  gone: () => {},
  dead: () => {},
  abandoned: () => {},
};

type OnError = (error: unknown) => void;

interface Leg extends DispatcherLeg {
  open(): Promise<PlantStorage>;
  start(
    storage: PlantStorage,
    config: WebhookConfig,
    observer: WebhookObserver,
    outbox: (outbox: PlantEventOutbox) => PlantEventOutbox,
    onError: OnError,
  ): Promise<WebhookDispatcher>;
  /** The storage's job queue, through a pg-boss of the test's own; absent in memory. */
  queue?(storage: PlantStorage): PgBoss;
  /** What `pnpm webhooks:redeliver` does on the storage's database; absent in memory. */
  redeliver?(storage: PlantStorage): Promise<number>;
  /** Drops what open() made for the test, once its storages are closed. */
  release?(): Promise<void>;
}

const memoryLeg: Leg = {
  name: 'in memory',
  queued: false,
  open: async () => openMemoryPlantStorage({ events: true }),
  start: async (storage, config, observer, outbox, onError) => {
    if (!storage.events) throw new Error('no outbox');
    return startMemoryDispatcher(outbox(storage.events), config, observer, onError);
  },
};

function pgliteLeg(folders: ReturnType<typeof pgliteDataFolders>): Leg {
  return {
    name: 'pg-boss on PGlite',
    queued: true,
    open: async () => openPglitePlantStorage({ dataDir: await folders.next(), events: true }),
    start: (storage, config, observer, outbox, onError) => {
      const { pglite, schema, events } = storage as PglitePlantStorage;
      return startPgBossDispatcher({
        database: { kind: 'pglite', pglite },
        storeSchema: schema,
        outbox: events && (outbox(events) as typeof events),
        config,
        observer,
        onError,
      });
    },
    queue: (storage) => {
      const { pglite, schema } = storage as PglitePlantStorage;
      return new PgBoss({
        db: fromPglite(pglite),
        backend: 'pglite',
        schema: jobQueueSchema(schema),
        supervise: false,
        schedule: false,
      });
    },
    redeliver: (storage) => {
      const { pglite, schema } = storage as PglitePlantStorage;
      return redeliverDeadWebhooks({ kind: 'pglite', pglite }, schema);
    },
  };
}

function postgresLeg(server: TestPostgres | undefined): Leg {
  let testSchema: TestPostgres | undefined;
  const connectionString = () => testSchema?.connectionString ?? '';
  return {
    name: 'pg-boss on PostgreSQL',
    queued: true,
    open: async () => {
      testSchema = await createTestSchema(server?.connectionString ?? '', "the file's server");
      return openPostgresPlantStorage({ connectionString: connectionString(), events: true });
    },
    start: (storage, config, observer, outbox, onError) => {
      const { schema, events } = storage as PostgresPlantStorage;
      return startPgBossDispatcher({
        database: { kind: 'postgres', connectionString: connectionString() },
        storeSchema: schema,
        outbox: events && (outbox(events) as typeof events),
        config,
        observer,
        onError,
      });
    },
    queue: (storage) =>
      new PgBoss({
        connectionString: connectionString(),
        max: 1,
        schema: jobQueueSchema((storage as PostgresPlantStorage).schema),
        supervise: false,
        schedule: false,
      }),
    redeliver: (storage) =>
      redeliverDeadWebhooks(
        { kind: 'postgres', connectionString: connectionString() },
        (storage as PostgresPlantStorage).schema,
      ),
    release: async () => {
      await testSchema?.cleanup();
      testSchema = undefined;
    },
  };
}

// Opened before each test, apart from its time: the first open of a file makes the PGlite template
// (initdb in WebAssembly), which takes seconds alone and far longer while every package's tests run.
const OPEN_TIMEOUT_MS = 120_000;

function describeLeg(title: string, leg: Leg, define: (tests: DispatcherTests) => void): void {
  describe(`${title}: ${leg.name}`, { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
    const secret = newSecret();
    const keys = parseWebhookSecrets(secret);
    const errors: unknown[] = [];
    const onError: OnError = (error) => void errors.push(error);
    // Stopped in this order: a dispatcher started again on a storage comes before the first one.
    const running: { storage: PlantStorage; dispatcher: WebhookDispatcher }[] = [];
    const receivers: TestReceiver[] = [];
    let opened: PlantStorage | undefined;

    beforeEach(async () => {
      opened = await leg.open();
    }, OPEN_TIMEOUT_MS);
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
      for (const { dispatcher, storage } of running.splice(0)) {
        await dispatcher.stop();
        await storage.close();
      }
      for (const receiver of receivers.splice(0)) await receiver.close();
      await leg.release?.();
      expect(errors.splice(0)).toStrictEqual([]);
    });

    define({
      leg: { name: leg.name, queued: leg.queued },
      async start({ urls = 1, schedule, timeoutMs = 2_000, observer = silentObserver, outbox = (o) => o }) {
        const hooks = await Promise.all(Array.from({ length: urls }, () => startTestReceiver([secret])));
        receivers.push(...hooks);
        if (!opened) throw new Error('one dispatcher a test: startAgain() starts the next');
        const storage = opened;
        opened = undefined;
        const config: WebhookConfig = { urls: hooks.map((hook) => hook.url), keys, schedule, timeoutMs };
        const dispatcher = await leg.start(storage, config, observer, outbox, onError);
        running.push({ storage, dispatcher });
        return {
          hooks,
          storage,
          dispatcher,
          config,
          async create(plant) {
            await storage.plants.insertIfAbsent(plant, plantCreated(plant));
            dispatcher.kick();
          },
        };
      },
      async startAgain({ storage, config }, observer) {
        const dispatcher = await leg.start(storage, config, observer, (o) => o, onError);
        running.unshift({ storage, dispatcher });
        return dispatcher;
      },
      async onQueue(storage, change) {
        const boss = leg.queue?.(storage);
        if (!boss) throw new Error(`no job queue ${leg.name}`);
        boss.on('error', onError);
        await boss.start();
        try {
          await change(boss);
        } finally {
          await boss.stop({ graceful: false, close: true });
        }
      },
      ...(leg.redeliver && {
        redeliver: (storage: PlantStorage) => leg.redeliver?.(storage) ?? Promise.resolve(0),
      }),
    });
  });
}

/**
 * Describes `define`'s tests as `${title}: <storage>` on each storage: in memory, pg-boss on PGlite,
 * and pg-boss on a PostgreSQL server when there is one (TEST_DATABASE_URL, or a container). Call it
 * once per file, at its top level (`await`).
 */
export async function describeEachDispatcher(
  title: string,
  define: (tests: DispatcherTests) => void,
): Promise<void> {
  const server = await provideTestPostgres();
  const folders = pgliteDataFolders();
  afterAll(async () => {
    await folders.cleanup();
    await server?.cleanup();
  });
  describeLeg(title, memoryLeg, define);
  describeLeg(title, pgliteLeg(folders), define);
  describe.skipIf(!server)(`on a PostgreSQL server (${server?.source ?? 'none'})`, () => {
    describeLeg(title, postgresLeg(server), define);
  });
}
