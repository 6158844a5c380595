import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_PAGE_LIMIT, type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import {
  createTestSchema,
  freePort,
  provideTestPostgres,
  randomPlantId,
  startTcpRelay,
} from '@plant-store/test-support';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from './migrate.ts';
import { openPostgresPlantStorage } from './open-postgres-plant-storage.ts';
import type { PlantDatabase } from './plant-database.ts';
import { LIST_AFTER, LIST_FIRST, LIST_TAG_AFTER, LIST_TAG_FIRST } from './plant-statements.ts';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

describe.skipIf(!server)(`PostgreSQL server (${server?.source ?? 'none'})`, () => {
  const connectionString = server?.connectionString ?? '';

  describePlantRepositoryContract('PostgreSQL server', {
    open: (options) => openPostgresPlantStorage({ connectionString, ...options }),
    durable: true,
  });

  // Batches of one, four at once: racing creates of one id meet in the database, in separate
  // statements, instead of being settled within one batch.
  describePlantRepositoryContract('PostgreSQL server, one plant a statement, four statements at once', {
    open: (options) =>
      openPostgresPlantStorage({
        connectionString,
        groupCommit: { maxBatchSize: 1, maxConcurrentBatches: 4 },
        ...options,
      }),
    durable: true,
  });

  // The same two without named statements, as behind PgBouncer in transaction mode (its drill runs
  // these two through Debian's PgBouncer).
  describePlantRepositoryContract('PostgreSQL server, without prepared statements', {
    open: (options) => openPostgresPlantStorage({ connectionString, preparedStatements: false, ...options }),
    durable: true,
  });

  describePlantRepositoryContract(
    'PostgreSQL server, without prepared statements, one plant a statement, four statements at once',
    {
      open: (options) =>
        openPostgresPlantStorage({
          connectionString,
          preparedStatements: false,
          groupCommit: { maxBatchSize: 1, maxConcurrentBatches: 4 },
          ...options,
        }),
      durable: true,
    },
  );

  /** A plain pg client on the test schema, to look at and disturb the database behind the port. */
  async function withClient<T>(work: (client: pg.Client) => Promise<T>, url = connectionString): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  /** Holds an exclusive lock on `plants` so that every statement on it waits, until release(). */
  async function lockPlants(): Promise<{ blockedPids(): Promise<number[]>; release(): Promise<void> }> {
    const locker = new pg.Client({ connectionString });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table plants in access exclusive mode');
    return {
      async blockedPids() {
        const { rows } = await locker.query<{ pid: number }>(
          'select pid from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))',
        );
        return rows.map((row) => row.pid);
      },
      async release() {
        await locker.query('rollback');
        await locker.end();
      },
    };
  }

  async function waitForBlocked(lock: { blockedPids(): Promise<number[]> }): Promise<number[]> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const pids = await lock.blockedPids();
      if (pids.length > 0) return pids;
      await sleep(20);
    }
    throw new Error('no statement got blocked by the lock');
  }

  describe('openPostgresPlantStorage', () => {
    it('when the connection string sets search_path in its options, then the table is created in that schema', async () => {
      const storage = await openPostgresPlantStorage({ connectionString });
      await storage.close();
      const schema = new URL(connectionString).searchParams.get('options')?.match(/search_path=(\w+)/)?.[1];
      const found = await withClient((client) =>
        client.query<{ schema: string }>(
          "select table_schema as schema from information_schema.tables where table_name = 'plants'",
        ),
      );
      if (schema === undefined) {
        // A container is a database of its own: no schema was set, so the default one holds it.
        expect(found.rows.map((row) => row.schema)).toContain('public');
      } else {
        expect(found.rows.map((row) => row.schema)).toContain(schema);
      }
    });

    it('when the same database is opened twice, then the migrations ran once and both storages work', async () => {
      const first = await openPostgresPlantStorage({ connectionString });
      const second = await openPostgresPlantStorage({ connectionString });
      try {
        const plant = { id: randomPlantId(), name: 'Fern' };
        await first.plants.insertIfAbsent(plant);
        await expect(second.plants.findById(plant.id)).resolves.toStrictEqual(plant);
        const { rows } = await withClient((client) =>
          client.query<{ name: string }>('select name from kysely_migration'),
        );
        expect(rows.map((row) => row.name)).toEqual([
          '0001_create_plants',
          '0002_create_plant_events',
          '0003_index_plant_pages',
          '0004_keep_event_trace_context',
          '0005_index_plant_tag_pages',
        ]);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('when several storages open at once on a fresh schema, then all migrate without error', async () => {
      const fresh = await createTestSchema(connectionString, 'fresh');
      try {
        const storages = await Promise.all(
          Array.from({ length: 4 }, () =>
            openPostgresPlantStorage({ connectionString: fresh.connectionString }),
          ),
        );
        await Promise.all(storages.map((storage) => storage.checkReady()));
        await Promise.all(storages.map((storage) => storage.close()));
        const { rows } = await withClient(
          (client) => client.query<{ name: string }>('select name from kysely_migration'),
          fresh.connectionString,
        );
        expect(rows.map((row) => row.name)).toEqual([
          '0001_create_plants',
          '0002_create_plant_events',
          '0003_index_plant_pages',
          '0004_keep_event_trace_context',
          '0005_index_plant_tag_pages',
        ]);
      } finally {
        await fresh.cleanup();
      }
    });

    /** The scans of the generic plans of the list statements, as the pool runs them, only index scans allowed. */
    async function pageScans(url: string): Promise<Record<string, string[]>> {
      return withClient(async (client) => {
        await client.query('vacuum analyze plants');
        await client.query('set enable_seqscan = off; set enable_bitmapscan = off');
        await client.query('set plan_cache_mode = force_generic_plan');
        const found: Record<string, string[]> = {};
        const page = { upTo: 101, maxBytes: '1048576' };
        for (const query of [LIST_FIRST.bind(page), LIST_AFTER.bind({ ...page, after: '0' })]) {
          const name = query.sql === LIST_FIRST.sql ? LIST_FIRST.name : LIST_AFTER.name;
          await client.query(`prepare page_plan as ${query.sql}`);
          const parameters = query.parameters.map((value) => `'${value}'`).join(', ');
          const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
            `explain (format json) execute page_plan (${parameters})`,
          );
          await client.query('deallocate page_plan');
          const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
          found[name] = [...plan.matchAll(/"Node Type":"([^"]+)"[^{}]*?"Index Name":"([^"]+)"/g)]
            .map((match) => `${match[1]} on ${match[2]}`)
            .sort();
        }
        return found;
      }, url);
    }

    // The list statements must imply the partial indexes' predicates word for word, or the planner
    // falls back to the primary key and a heap page per plant.
    it.each([
      ['built by the migration', false],
      ['created with CONCURRENTLY from the statements docs/storage.md gives operators of large stores', true],
    ])(
      'when the page indexes were %s, then a page reads short plants from the covering index alone and long ones from their own index',
      async (_how, fromDocs) => {
        const fresh = await createTestSchema(connectionString, 'pages');
        const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
        try {
          if (fromDocs) {
            const page = readFileSync(
              join(import.meta.dirname, '..', '..', '..', 'docs', 'storage.md'),
              'utf8',
            );
            const statements =
              page.match(/CREATE INDEX CONCURRENTLY IF NOT EXISTS plants_page(_long)? [^;]+;/g) ?? [];
            expect(statements).toHaveLength(2);
            await withClient(async (client) => {
              await client.query('drop index plants_page; drop index plants_page_long');
              for (const statement of statements) await client.query(statement);
            }, fresh.connectionString);
          }
          await storage.plants.insertIfAbsent({ id: 1n, name: 'short' });
          await storage.plants.insertIfAbsent({ id: 2n, name: 'long'.repeat(1_000) });
          const expected = ['Index Only Scan on plants_page', 'Index Scan on plants_page_long'];
          await expect(pageScans(fresh.connectionString)).resolves.toStrictEqual({
            plant_store_list_first: expected,
            plant_store_list_after: expected,
          });
          await expect(storage.plants.listAfter(0n, 10)).resolves.toStrictEqual({
            plants: [
              { id: 1n, name: 'short' },
              { id: 2n, name: 'long'.repeat(1_000) },
            ],
            more: false,
          });
        } finally {
          await storage.close();
          await fresh.cleanup();
        }
      },
    );

    it('when a list statement runs again and again on one connection, then the server settles on one plan for it, not one per call', async () => {
      const fresh = await createTestSchema(connectionString, 'generic');
      const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
      try {
        const plans = await withClient(async (client) => {
          // Enough plants that a plan made for any page size would cost more than one made for a hundred.
          await client.query(
            "insert into plants (id, name) select g, 'plant ' || g from generate_series(1, 100000) g",
          );
          await client.query('analyze plants');
          const found: Record<string, number> = {};
          for (const statement of [LIST_FIRST, LIST_AFTER]) {
            const { name } = statement;
            for (let call = 0; call < 10; call += 1) {
              const page = { after: String(call * 20), upTo: 101, maxBytes: '1048576' };
              const { sql: text, parameters } = statement.bind(page);
              await client.query({ name, text, values: [...parameters] });
            }
            const { rows } = await client.query<{ generic_plans: string }>(
              'select generic_plans from pg_prepared_statements where name = $1',
              [name],
            );
            found[name] = Number(rows[0]?.generic_plans);
          }
          return found;
        }, fresh.connectionString);
        // PostgreSQL plans the first five calls for their values, then keeps a generic plan when it costs no more.
        expect(plans).toStrictEqual({ plant_store_list_first: 5, plant_store_list_after: 5 });
      } finally {
        await storage.close();
        await fresh.cleanup();
      }
    });

    // The server keeps a generic plan only while it costs no more than the plans made for each call's
    // values; it reckons a LIMIT of a parameter at a tenth of the rows under it, a share that grows
    // with the table (on 10,000,000 plants it planned every page anew, ~0.2 ms a call).
    it('when the table grows, then the generic plan of every page statement still expects at most the largest page from each LIMIT, so the server keeps it', async () => {
      const fresh = await createTestSchema(connectionString, 'estimates');
      const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
      try {
        const estimates = await withClient(async (client) => {
          await client.query(
            "insert into plants (id, name, tag) select g, 'plant ' || g, 'tag ' || (g % 10) from generate_series(1, 100000) g",
          );
          await client.query('vacuum analyze plants');
          await client.query('set plan_cache_mode = force_generic_plan');
          const page = { after: '0', upTo: 101, maxBytes: '1048576', tag: 'tag 5' };
          const found: Record<string, number> = {};
          for (const statement of [LIST_FIRST, LIST_AFTER, LIST_TAG_FIRST, LIST_TAG_AFTER]) {
            const query = statement.bind(page);
            await client.query(`prepare page_plan as ${query.sql}`);
            const parameters = query.parameters.map((value) => `'${value}'`).join(', ');
            const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
              `explain (format json) execute page_plan (${parameters})`,
            );
            await client.query('deallocate page_plan');
            const plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
            found[statement.name] = Math.max(
              ...[...plan.matchAll(/"Node Type":"Limit"[^{}]*?"Plan Rows":(\d+)/g)].map((match) =>
                Number(match[1]),
              ),
            );
          }
          return found;
        }, fresh.connectionString);
        for (const [name, rows] of Object.entries(estimates))
          expect(rows, name).toBeLessThanOrEqual(MAX_PAGE_LIMIT + 1);
        expect(Object.keys(estimates)).toHaveLength(4);
      } finally {
        await storage.close();
        await fresh.cleanup();
      }
    });

    it('when a page larger than the API serves is asked, then it holds that many plants all the same, by tag too', async () => {
      const fresh = await createTestSchema(connectionString, 'large_page');
      const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
      try {
        await withClient(
          (client) =>
            client.query(
              "insert into plants (id, name, tag) select g, 'plant ' || g, 'aroid' from generate_series(1, 1500) g",
            ),
          fresh.connectionString,
        );
        const limit = MAX_PAGE_LIMIT + 200;
        for (const tag of [undefined, 'aroid']) {
          const page = await storage.plants.listAfter(0n, limit, undefined, tag);
          expect(page.plants.map((plant) => plant.id)).toStrictEqual(
            Array.from({ length: limit }, (_, index) => BigInt(index + 1)),
          );
          expect(page.more).toBe(true);
        }
      } finally {
        await storage.close();
        await fresh.cleanup();
      }
    });

    it('when a page stops at its byte budget, then the plant after it is sent without its name and tag, and none after that', async () => {
      const fresh = await createTestSchema(connectionString, 'budget');
      const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
      try {
        for (const id of [1n, 2n, 3n, 4n])
          await storage.plants.insertIfAbsent({ id, name: 'x'.repeat(64 * 1024) });
        const { sql: text, parameters } = LIST_AFTER.bind({
          after: '0',
          upTo: 1001,
          maxBytes: String(100 * 1024),
        });
        const { rows } = await withClient(
          (client) => client.query(text, [...parameters]),
          fresh.connectionString,
        );
        expect(rows.map((row) => [row.id, row.name?.length ?? null, row.tag, row.kept])).toEqual([
          ['1', 64 * 1024, null, true],
          ['2', null, null, false],
        ]);
        await expect(storage.plants.listAfter(0n, 1000, 100 * 1024)).resolves.toStrictEqual({
          plants: [{ id: 1n, name: 'x'.repeat(64 * 1024) }],
          more: true,
        });
      } finally {
        await storage.close();
        await fresh.cleanup();
      }
    });

    it("when a schema migrates, then it reads the catalog of its own schema only, so another run's schema dropped meanwhile cannot fail it", async () => {
      // kysely's introspection called has_schema_privilege() by name on every schema's tables: a
      // schema dropped between its catalog read and that call failed the migration (twice on 2026-11-26).
      const fresh = await createTestSchema(connectionString, 'introspection');
      const statements: string[] = [];
      const db = new Kysely<PlantDatabase>({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: fresh.connectionString, max: 2 }),
        }),
        log: (event) => void statements.push(event.query.sql),
      });
      try {
        await migrateToLatest(db);
        const catalogReads = statements.filter((statement) =>
          /pg_catalog\.pg_(class|namespace)/.test(statement),
        );
        expect(catalogReads.length).toBeGreaterThan(0);
        expect(catalogReads.filter((statement) => !statement.includes('nspname = $1'))).toEqual([]);
        expect(statements.filter((statement) => statement.includes('has_schema_privilege'))).toEqual([]);
        // And the migrations ran: the storage opens on it without migrating again.
        const tables = await withClient(
          (client) =>
            client.query<{ table_name: string }>(
              'select table_name from information_schema.tables where table_schema = current_schema() order by 1',
            ),
          fresh.connectionString,
        );
        expect(tables.rows.map((row) => row.table_name)).toEqual(
          expect.arrayContaining(['kysely_migration', 'plant_events', 'plants']),
        );
      } finally {
        await db.destroy();
        await fresh.cleanup();
      }
    });

    it('when a migration fails, then opening rejects with an error that names the migration', async () => {
      const fresh = await createTestSchema(connectionString, 'fresh');
      try {
        await withClient((client) => client.query('create table plants (id int)'), fresh.connectionString);
        await expect(openPostgresPlantStorage({ connectionString: fresh.connectionString })).rejects.toThrow(
          'database migration failed at migration 0001_create_plants: ',
        );
      } finally {
        await fresh.cleanup();
      }
    });

    it('when nothing listens at the address, then opening rejects at the refusal with StorageUnavailableError', async () => {
      // Given a connection timeout longer than the test's own bound: a rejection that came from
      // waiting it out, or from retrying, would fail the test; the refusal itself is the cause.
      const opening = openPostgresPlantStorage({
        connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/test`,
        connectionTimeoutMillis: 600_000,
      });
      await expect(opening).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(opening).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    });
  });

  describe('when the database fails under a running storage', () => {
    let storage: PlantStorage | undefined;
    afterAll(async () => {
      await storage?.close();
    });

    it('when a statement outlasts statement_timeout, then it rejects with StorageUnavailableError', async () => {
      storage = await openPostgresPlantStorage({ connectionString, statementTimeoutMillis: 300 });
      const lock = await lockPlants();
      try {
        const insert = storage.plants.insertIfAbsent({ id: randomPlantId(), name: 'slow' });
        await expect(insert).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(insert).rejects.toMatchObject({ cause: { code: '57014' } });
      } finally {
        await lock.release();
      }
      await expect(storage.checkReady()).resolves.toBeUndefined();
    });

    it('when the server ends a busy connection (admin shutdown), then the operation rejects with StorageUnavailableError and the very next one gets a fresh connection', async () => {
      // One connection, so that a dead one handed out again would be the one the next operation gets.
      const busy = await openPostgresPlantStorage({ connectionString, poolSize: 1 });
      const lock = await lockPlants();
      try {
        // Settled at once, so that its rejection is handled while the test is still arranging.
        const insert = busy.plants.insertIfAbsent({ id: randomPlantId(), name: 'interrupted' }).then(
          () => undefined,
          (error: unknown) => error,
        );
        const [pid] = await waitForBlocked(lock);
        await withClient((client) => client.query('select pg_terminate_backend($1)', [pid]));
        const error = await insert;
        expect(error).toBeInstanceOf(StorageUnavailableError);
        expect(error).toMatchObject({ cause: { code: '57P01' } });
        // At once, before the pool could learn from the closed socket that the connection is gone.
        await expect(busy.checkReady()).resolves.toBeUndefined();
      } finally {
        await lock.release();
      }
      try {
        const plant = { id: randomPlantId(), name: 'after' };
        await expect(busy.plants.insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
      } finally {
        await busy.close();
      }
    });

    it('when its connection goes silent mid-query (a network that drops it), then the operation fails as unavailable after the read timeout and the next one gets a fresh connection instead of waiting behind it', async () => {
      const target = new URL(connectionString);
      const proxy = await startTcpRelay(target.hostname, Number(target.port || 5432));
      const viaProxy = new URL(connectionString);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      // One connection, so that the next operation would get the silent one if it were kept. The read
      // timeout bounds the operations after the silence too: long enough for a busy machine's.
      const storage = await openPostgresPlantStorage({
        connectionString: viaProxy.toString(),
        poolSize: 1,
        readTimeoutMillis: 5_000,
      });
      try {
        await storage.checkReady();
        proxy.silenceOpenConnections();
        await expect(storage.checkReady()).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(storage.checkReady()).resolves.toBeUndefined();
        const plant = { id: randomPlantId(), name: 'after the silence' };
        await expect(storage.plants.insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
      } finally {
        await proxy.stop();
        await storage.close();
      }
    });

    it('when the server ends idle connections, then the process survives and the next operation succeeds', async () => {
      const applicationName = `plant_store_${randomPlantId() & 0xffffffn}`;
      const url = new URL(connectionString);
      url.searchParams.set('application_name', applicationName);
      const idle = await openPostgresPlantStorage({ connectionString: url.toString() });
      try {
        await idle.checkReady();
        const { rows } = await withClient((client) =>
          client.query<{ ended: boolean }>(
            'select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1',
            [applicationName],
          ),
        );
        expect(rows.length).toBeGreaterThan(0);
        // Let the idle clients see their connections end and emit 'error' on the pool.
        await sleep(200);
        await expect(idle.checkReady()).resolves.toBeUndefined();
      } finally {
        await idle.close();
      }
    });

    it('when the database becomes unreachable, then operations reject with StorageUnavailableError until it is back', async () => {
      const target = new URL(connectionString);
      const proxy = await startTcpRelay(target.hostname, Number(target.port || 5432));
      const viaProxy = new URL(connectionString);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      // The default connection timeout: while the relay is down a connection is refused at once, and
      // once it is back, a busy machine may take longer than a short bound to connect.
      const flaky = await openPostgresPlantStorage({ connectionString: viaProxy.toString() });
      try {
        await flaky.checkReady();
        await proxy.stop();
        await expect(flaky.checkReady()).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(
          flaky.plants.insertIfAbsent({ id: randomPlantId(), name: 'lost' }),
        ).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(flaky.plants.findById(randomPlantId())).rejects.toBeInstanceOf(StorageUnavailableError);
        await proxy.start();
        await expect(flaky.checkReady()).resolves.toBeUndefined();
      } finally {
        await flaky.close();
        await proxy.stop();
      }
    });
  });
});
