// The bench's own database on the PostgreSQL server (never the shared `test` one): its tables dropped
// and made anew for each part, and the growth tables of 10,000, 1,000,000 and 10,000,000 plants, each
// in a schema of its own, seeded once, kept between runs, and warmed before their rounds.
import { readFileSync } from 'node:fs';
import pg from 'pg';

export const BENCH_DATABASE = 'plant_store_bench';
/** The advisory lock a run holds while it uses the bench database: two runs would drop each other's tables. */
const BENCH_LOCK = 5_140_014;

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Makes the bench database on the loopback server of `adminUrl` when it is missing, then waits until
 * no other bench run holds it and holds it until this process exits. Answers its URL and, for the
 * record, the server's version and the settings that decide what a commit and a read cost.
 */
export async function openBenchDatabase(adminUrl: string, log: (line: string) => void) {
  const url = new URL(adminUrl);
  if (!['127.0.0.1', 'localhost', '[::1]', ''].includes(url.hostname))
    throw new Error(`BENCH_DATABASE_URL must point at this machine (loopback), not ${url.hostname}`);
  await withClient(adminUrl, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${BENCH_DATABASE}`);
  });
  url.pathname = `/${BENCH_DATABASE}`;
  const held = new pg.Client({ connectionString: url.toString() });
  held.on('error', () => {});
  await held.connect();
  for (let told = false; ; told = true) {
    const { rows } = await held.query('SELECT pg_try_advisory_lock($1) AS locked', [BENCH_LOCK]);
    if (rows[0]?.locked) break;
    if (!told) log('another bench run is using the bench database: waiting for it to end');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const { rows } = await held.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit',
       'wal_sync_method', 'commit_delay', 'shared_buffers', 'max_connections') ORDER BY name`,
  );
  const settings = rows
    .map((row) => `${row.name}=${row.setting}${row.unit ? ` ${row.unit}` : ''}`)
    .join(', ');
  return { url: url.toString(), settings };
}

/** The schemas whose seeded `plants` table outlives a run. */
export const GROWTH_SCHEMAS = ['bench_growth_10k', 'bench_growth', 'bench_growth_10m'];
/** pg-boss's schema beside a store in `schema` (as packages/webhooks names it). */
const jobQueue = (schema: string) => (schema === 'public' ? 'pgboss' : `${schema}_pgboss`);

/**
 * Drops every table of the bench database (the service's, its outbox and migrations, the baselines')
 * and every job queue, so that each part starts empty and no delivery is left from the last run; the
 * growth tables stay. Then a checkpoint, so that one owed to these writes does not land in a segment.
 */
export async function resetBenchDatabase(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      'DROP TABLE IF EXISTS plants, plant_events, kysely_migration, kysely_migration_lock, bench_plants, kysely_plants, pgbench_plants CASCADE',
    );
    for (const schema of ['public', ...GROWTH_SCHEMAS])
      await client.query(`DROP SCHEMA IF EXISTS "${jobQueue(schema)}" CASCADE`);
    await client.query('CHECKPOINT');
  });
}

export const checkpoint = (url: string) => withClient(url, (client) => client.query('CHECKPOINT'));

/** `url` with the libpq options that make `schema` the first of the search_path (the service passes them on). */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

/** Seeding's statements insert this many rows each: 10,000,000 plants take 4. */
const SEED_CHUNK = 2_500_000;
/** A growth table's comment once its seed is complete; a change to the seed's shape changes it. */
const seedMark = (rows: number) =>
  `plant-store bench growth seed v2: ${rows} plants, negative random ids, names of 27 characters, one tag in four NULL`;

/** A tag that the same number of plants carry in every growth table, however large: pages by a rare tag. */
export const RARE_TAG = 'fern';
export const RARE_PLANTS = 1_000;

/**
 * Makes the service's table (`url`'s search_path, migrated by the service) hold exactly `rows` seeded
 * plants: random negative int64 ids (spread over the whole index, never the load's positive ones),
 * names of one length, one tag in four NULL, and RARE_PLANTS of the tagged ones (the first names,
 * so at random over the ids) tagged RARE_TAG. A table marked complete that still holds them is kept,
 * only the rows an earlier run's load added deleted; anything else is emptied and seeded anew. Then
 * VACUUM ANALYZE (as autovacuum would have left it: the visibility map index-only scans need) and a
 * CHECKPOINT. Answers a note on what was done.
 */
export async function prepareGrowthTable(url: string, rows: number): Promise<string> {
  return withClient(url, async (client) => {
    const mark = seedMark(rows);
    const found = await client.query(`SELECT obj_description('plants'::regclass, 'pg_class') AS mark`);
    const seeded = await client.query('SELECT count(*)::int AS count FROM plants WHERE id < 0');
    let note: string;
    if (found.rows[0]?.mark === mark && seeded.rows[0]?.count === rows) {
      const removed = (await client.query('DELETE FROM plants WHERE id >= 0')).rowCount;
      note = `kept from an earlier run, whose ${removed} created rows were deleted`;
    } else {
      const started = performance.now();
      await client.query('COMMENT ON TABLE plants IS NULL');
      await client.query('TRUNCATE plants');
      for (let inserted = 0, from = 1; inserted < rows; from += SEED_CHUNK) {
        const to = from + Math.min(SEED_CHUNK, rows - inserted) - 1;
        const result = await client.query(
          `INSERT INTO plants (id, name, tag)
           SELECT -1 - (random() * 4.6e18)::bigint, 'Monstera deliciosa ' || lpad(n::text, 8, '0'),
                  CASE WHEN n % 4 = 0 THEN NULL ELSE 'aroid' END
           FROM generate_series($1::bigint, $2::bigint) AS n ON CONFLICT DO NOTHING`,
          [from, to],
        );
        inserted += result.rowCount ?? 0;
      }
      await client.query(`COMMENT ON TABLE plants IS '${mark}'`);
      note = `seeded in this run in ${((performance.now() - started) / 1000).toFixed(0)} s, kept for the next`;
    }
    // On top of the seed, so that tables seeded before the rare tag came are kept.
    const rare = await client.query('SELECT count(*)::int AS count FROM plants WHERE tag = $1', [RARE_TAG]);
    if (rare.rows[0]?.count !== RARE_PLANTS) {
      await client.query(`UPDATE plants SET tag = 'aroid' WHERE tag = $1`, [RARE_TAG]);
      await client.query(
        `UPDATE plants SET tag = $1 WHERE id IN
           (SELECT id FROM plants WHERE id < 0 AND tag IS NOT NULL ORDER BY name LIMIT $2)`,
        [RARE_TAG, RARE_PLANTS],
      );
      note += `, ${RARE_PLANTS} plants tagged ${RARE_TAG}`;
    }
    await client.query('VACUUM ANALYZE plants');
    await client.query('CHECKPOINT');
    const count = (await client.query('SELECT count(*)::int AS count FROM plants')).rows[0]?.count;
    if (count !== rows) throw new Error(`the growth table holds ${count} plants after seeding, not ${rows}`);
    return note;
  });
}

/**
 * About `count` of the table's ids (all of them when it holds no more), drawn row by row at random over
 * the whole table (BERNOULLI: SYSTEM takes whole pages, whose ids would all be in the same buffers),
 * those of them with a full page of `page` plants after them, and the ids of the plants tagged RARE_TAG
 * with a full page of them after.
 */
export async function sampleIds(url: string, rows: number, count: number, page: number) {
  return withClient(url, async (client) => {
    const sampled = await client.query<{ id: string }>(
      rows <= count
        ? 'SELECT id FROM plants ORDER BY id'
        : `SELECT id FROM plants TABLESAMPLE BERNOULLI (${(100 * count) / rows}) ORDER BY id`,
    );
    const edge = await client.query('SELECT id FROM plants ORDER BY id DESC OFFSET $1 LIMIT 1', [page]);
    const rare = await client.query<{ id: string }>('SELECT id FROM plants WHERE tag = $1 ORDER BY id', [
      RARE_TAG,
    ]);
    const ids = sampled.rows.map((row) => row.id);
    const last = BigInt(edge.rows[0]?.id ?? '-9223372036854775808');
    return {
      ids,
      pageStarts: ids.filter((id) => BigInt(id) < last),
      rareStarts: rare.rows.slice(0, -(page + 1)).map((row) => row.id),
    };
  });
}

const MiB = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/**
 * The growth tables' state, controlled and told: every block of each table and of its indexes read
 * (pg_prewarm 'read': into the OS's page cache, which the machine's free memory holds, not into
 * shared_buffers, which hold only what the reads keep there), then, per table, its size, how much of
 * it is in shared buffers (pg_buffercache) and how much of its heap is all-visible (the index-only
 * scans of list pages read no heap page there). Answers one line per schema.
 */
export async function warmGrowthTables(url: string, schemas: readonly string[]): Promise<string[]> {
  return withClient(url, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_buffercache');
    const buffers = (
      await client.query(
        `SELECT setting::bigint * 8192 AS bytes FROM pg_settings WHERE name = 'shared_buffers'`,
      )
    ).rows[0]?.bytes;
    const lines: string[] = [];
    const meminfo = readFileSync('/proc/meminfo', 'utf8');
    for (const schema of schemas) {
      const { rows } = await client.query(
        `WITH relations AS (
           SELECT c.oid, c.relkind, c.relpages, c.relallvisible FROM pg_class c
           WHERE c.oid = $1::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = $1::regclass))
         SELECT r.relkind, r.relpages, r.relallvisible, pg_prewarm(r.oid, 'read') AS blocks,
                pg_relation_size(r.oid) AS bytes,
                (SELECT count(*) * 8192 FROM pg_buffercache b
                 WHERE b.relfilenode = pg_relation_filenode(r.oid)
                   AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) AS cached
         FROM relations r`,
        [`"${schema}".plants`],
      );
      const sum = (kind: string, column: string) =>
        rows.filter((row) => row.relkind === kind).reduce((total, row) => total + Number(row[column]), 0);
      const heap = rows.find((row) => row.relkind === 'r');
      lines.push(
        `${schema}: heap ${MiB(sum('r', 'bytes'))}, indexes ${MiB(sum('i', 'bytes'))}, all read into the OS's cache ` +
          `just before the rounds (pg_prewarm 'read'); in shared buffers ${MiB(sum('r', 'cached') + sum('i', 'cached'))} ` +
          `of ${MiB(Number(buffers))}; heap all-visible ${Math.round((100 * heap?.relallvisible) / Math.max(1, heap?.relpages))}%; ` +
          `machine memory available ${MiB(Number(/^MemAvailable:\s+(\d+)/m.exec(meminfo)?.[1]) * 1024)}`,
      );
    }
    return lines;
  });
}
