// The PostgreSQL side of the bench: a database of its own on the server (never the shared `test`
// one), its tables dropped and made anew for each target, and the 1,000,000-plant seed.
import pg from 'pg';

export const BENCH_DATABASE = 'plant_store_bench';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1', '']);

/** The bench database's URL on the server of `adminUrl`; refuses any host but loopback. */
export function benchDatabaseUrl(adminUrl: string): string {
  const url = new URL(adminUrl);
  if (!LOOPBACK_HOSTS.has(url.hostname) && !url.hostname.startsWith('127.')) {
    throw new Error(`BENCH_DATABASE_URL must point at this machine (loopback), not ${url.hostname}`);
  }
  url.pathname = `/${BENCH_DATABASE}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The advisory lock a bench run holds on the bench database while it runs (any number, the same in every run). */
const BENCH_LOCK = 5_140_014;

/**
 * Waits until no other bench run uses the bench database, then holds it until this process exits:
 * two runs at once would drop each other's tables (and load the same machine). Answers the held
 * connection; the lock goes with it.
 */
export async function holdBenchLock(
  url: string,
  log: (line: string) => void,
  limitSeconds = 900,
): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  const started = performance.now();
  let told = false;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      BENCH_LOCK,
    ]);
    if (rows[0]?.locked) return client;
    if (!told) log('another bench run is using the bench database: waiting for it to end');
    told = true;
    if (performance.now() - started > limitSeconds * 1000) {
      await client.end();
      throw new Error(`another bench run held the bench database for over ${limitSeconds} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Creates the bench database when it is missing; answers the server's version. */
export async function ensureBenchDatabase(adminUrl: string): Promise<string> {
  return withClient(adminUrl, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${BENCH_DATABASE}`);
    const version = await client.query<{ server_version: string }>('SHOW server_version');
    return version.rows[0]?.server_version ?? 'unknown';
  });
}

/** Settings that decide what a commit costs, for the record. */
export async function durabilitySettings(url: string): Promise<Record<string, string>> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings
       WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay', 'shared_buffers', 'max_connections')
       ORDER BY name`,
    );
    return Object.fromEntries(
      rows.map((row) => [row.name, row.unit ? `${row.setting} ${row.unit}` : row.setting]),
    );
  });
}

/**
 * The schema of the webhook's job queue (pg-boss) beside a store in `storeSchema`: as
 * packages/webhooks' `jobQueueSchema` names it (the bench does not depend on that package).
 */
export function jobQueueSchema(storeSchema: string): string {
  return storeSchema === 'public' ? 'pgboss' : `${storeSchema}_pgboss`;
}

/**
 * Drops every table of the bench database (the service's, its outbox of events and its migration bookkeeping, and the
 * baselines') and the webhook's job queue (the schema pg-boss made beside the service's), so each
 * target starts on an empty database and a rerun finds no deliveries left by the last one; then a
 * checkpoint, so that one left over from the previous target's writes does not land in the next
 * target's figures.
 */
export async function resetBenchDatabase(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      'DROP TABLE IF EXISTS plants, plant_events, kysely_migration, kysely_migration_lock, bench_plants, pgbench_plants CASCADE',
    );
    // The service's schema is the first of the search_path, as it is for the service's own connections.
    const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
    const queue = jobQueueSchema(rows[0]?.schema ?? 'public');
    await client.query(`DROP SCHEMA IF EXISTS "${queue.replaceAll('"', '""')}" CASCADE`);
    // The growth target's schema, and the job queue a service there would have made beside it.
    for (const schema of [GROWTH_SCHEMA, jobQueueSchema(GROWTH_SCHEMA)])
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query('CHECKPOINT');
  });
}

/** The schema the growth target's service keeps its 1,000,000 plants in, beside the other targets' `public`. */
export const GROWTH_SCHEMA = 'bench_growth';

/** `url` with libpq options that make `schema` the first of the search_path (the service passes them on). */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

export async function createSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (client) =>
    client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replaceAll('"', '""')}"`),
  );
}

export async function checkpoint(url: string): Promise<void> {
  await withClient(url, (client) => client.query('CHECKPOINT'));
}

export async function createPgbenchTable(url: string): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      'CREATE TABLE pgbench_plants (id bigint PRIMARY KEY, name text NOT NULL, tag text, created_at timestamptz NOT NULL DEFAULT now())',
    ),
  );
}

export async function countRows(url: string, table: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${table}`);
    return Number(rows[0]?.count ?? 0);
  });
}

/**
 * Adds `count` plants to the service's table, in one statement. Their ids are random negative
 * int64s: spread over the whole index as real ids would be, and never equal to the bench's own
 * ids, which are positive. Vacuumed and analysed afterwards, as autovacuum would have by then.
 */
export async function seedPlants(url: string, count: number): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO plants (id, name, tag)
       SELECT -1 - (random() * 4.6e18)::bigint, 'Monstera deliciosa', 'aroid' FROM generate_series(1, $1)
       ON CONFLICT DO NOTHING`,
      [count],
    );
    await client.query('VACUUM ANALYZE plants');
    await client.query('CHECKPOINT');
  });
}

/**
 * Stores `count` plants in the service's table for the reads, in one statement, and answers every
 * id stored, ascending (as text: exact int64s). Ids are random positive int64s, nearly all above
 * 2^53; one plant in four has no tag, so both answers' shapes are read. Vacuumed and analysed, as
 * autovacuum would have by then.
 */
export async function seedReadPlants(url: string, count: number): Promise<string[]> {
  return withClient(url, async (client) => {
    await client.query(
      `INSERT INTO plants (id, name, tag)
       SELECT 1 + (random() * 9.2e18)::bigint, 'Monstera deliciosa ' || n, CASE WHEN n % 4 = 0 THEN NULL ELSE 'aroid' END
       FROM generate_series(1, $1) AS n
       ON CONFLICT DO NOTHING`,
      [count],
    );
    await client.query('VACUUM ANALYZE plants');
    await client.query('CHECKPOINT');
    const { rows } = await client.query<{ id: string }>('SELECT id FROM plants ORDER BY id');
    return rows.map((row) => row.id);
  });
}
