// The PostgreSQL side of the bench: a database of its own on the server (never the shared `test`
// one), its tables dropped and made anew for each target, and the growth targets' tables of
// 10,000, 1,000,000 and 10,000,000 plants, each in a schema of its own, seeded once and kept.
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
    // The growth tables are kept (prepareGrowthTable puts them back as seeded); the job queue a
    // service there would have made beside them is not.
    for (const schema of GROWTH_SCHEMAS)
      await client.query(`DROP SCHEMA IF EXISTS "${jobQueueSchema(schema)}" CASCADE`);
    await client.query('CHECKPOINT');
  });
}

/** The schema the growth target's service keeps its 1,000,000 plants in, beside the other targets' `public`. */
export const GROWTH_SCHEMA = 'bench_growth';
/** The schema of the 10,000,000-plant table (growth-10m, growth-get-10m, growth-list-10m). */
export const GROWTH_10M_SCHEMA = 'bench_growth_10m';
/** The schema of the small table the growth reads are compared to (growth-get-10k, growth-list-10k). */
export const GROWTH_SMALL_SCHEMA = 'bench_growth_10k';
/** Schemas whose seeded `plants` table outlives a run; resetBenchDatabase leaves them. */
const GROWTH_SCHEMAS = [GROWTH_SMALL_SCHEMA, GROWTH_SCHEMA, GROWTH_10M_SCHEMA] as const;

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

/** Rows of the growth seed a statement inserts: 10,000,000 plants take 4 statements. */
const SEED_CHUNK = 2_500_000;

/**
 * What a growth table's comment says once its seed is complete: the table is kept between runs only
 * when it says this and still holds that many seeded plants. A change to the seed's shape changes it.
 */
function seedMark(rows: number): string {
  return `plant-store bench growth seed v2: ${rows} plants, negative random ids, names of 27 characters, one tag in four NULL`;
}

/** What prepareGrowthTable did: seeded the table anew, or found it seeded and took the last run's load out. */
export interface PreparedGrowthTable {
  readonly reused: boolean;
  /** Rows the load of an earlier run had added (positive ids), deleted before this run. */
  readonly removed: number;
}

/**
 * Makes the service's table (`url`'s search_path: a growth schema, which the service has migrated)
 * hold exactly `rows` seeded plants and nothing else, vacuumed, analysed and checkpointed, as
 * autovacuum would have left it. Seeded plants have random negative int64 ids (spread over the
 * whole index, as real ids would be, and never equal to the load's ids, which are positive), names
 * of one length (`Monstera deliciosa 00000042`) and one tag in four NULL, so that every table size
 * answers reads of the same shape.
 *
 * Seeding 10,000,000 plants takes about a minute, so a table is kept between runs: when it is
 * marked as a complete seed of `rows` plants and still holds them, only the rows an earlier run's
 * load added are deleted (then VACUUM); otherwise it is emptied and seeded anew by
 * `INSERT ... SELECT generate_series`, a few statements of SEED_CHUNK rows (ids that collide are
 * drawn again).
 */
export async function prepareGrowthTable(url: string, rows: number): Promise<PreparedGrowthTable> {
  return withClient(url, async (client) => {
    const mark = seedMark(rows);
    const found = await client.query<{ mark: string | null }>(
      `SELECT obj_description('plants'::regclass, 'pg_class') AS mark`,
    );
    let reused = false;
    let removed = 0;
    if (found.rows[0]?.mark === mark) {
      const seeded = await client.query<{ count: string }>(
        'SELECT count(*) AS count FROM plants WHERE id < 0',
      );
      if (Number(seeded.rows[0]?.count) === rows) {
        reused = true;
        removed = (await client.query('DELETE FROM plants WHERE id >= 0')).rowCount ?? 0;
      }
    }
    if (!reused) {
      await client.query('COMMENT ON TABLE plants IS NULL');
      await client.query('TRUNCATE plants');
      let inserted = 0;
      for (let from = 1; inserted < rows; from += SEED_CHUNK) {
        const to = from + Math.min(SEED_CHUNK, rows - inserted) - 1;
        const result = await client.query(
          `INSERT INTO plants (id, name, tag)
           SELECT -1 - (random() * 4.6e18)::bigint,
                  'Monstera deliciosa ' || lpad(n::text, 8, '0'),
                  CASE WHEN n % 4 = 0 THEN NULL ELSE 'aroid' END
           FROM generate_series($1::bigint, $2::bigint) AS n
           ON CONFLICT DO NOTHING`,
          [from, to],
        );
        inserted += result.rowCount ?? 0;
      }
      await client.query(`COMMENT ON TABLE plants IS '${mark.replaceAll("'", "''")}'`);
    }
    await client.query('VACUUM ANALYZE plants');
    await client.query('CHECKPOINT');
    return { reused, removed };
  });
}

/** Ids a growth read picks from: spread over the whole table, and those a full page follows. */
export interface GrowthSample {
  /** Stored ids, ascending, as text (exact int64s). */
  readonly ids: string[];
  /** Those of `ids` with more than `page` stored ids above them: a page after one is full, and a next one follows. */
  readonly pageStarts: string[];
}

/**
 * Ids read back from a growth table: every id when it holds at most `count`, or about `count`
 * drawn row by row at random over the whole table (`TABLESAMPLE BERNOULLI`, not SYSTEM: SYSTEM
 * takes whole pages, and reads of ids from a few pages would find them all in shared buffers).
 */
export async function sampleGrowthIds(
  url: string,
  rows: number,
  count: number,
  page: number,
): Promise<GrowthSample> {
  return withClient(url, async (client) => {
    const sampled =
      rows <= count
        ? await client.query<{ id: string }>('SELECT id FROM plants ORDER BY id')
        : await client.query<{ id: string }>('SELECT id FROM plants TABLESAMPLE BERNOULLI ($1) ORDER BY id', [
            (100 * count) / rows,
          ]);
    const edge = await client.query<{ id: string }>(
      'SELECT id FROM plants ORDER BY id DESC OFFSET $1 LIMIT 1',
      [page],
    );
    const ids = sampled.rows.map((row) => row.id);
    const last = edge.rows[0]?.id;
    const pageStarts = last === undefined ? [] : ids.filter((id) => BigInt(id) < BigInt(last));
    return { ids, pageStarts };
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
