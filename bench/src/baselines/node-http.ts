// The storage baselines: a node:http server doing what the service does for `POST /plants` (token
// check, body read, exact int64 parse, minimal validation, JSON answer) and one INSERT a request, with
// none of the service's features (group commit, outbox, metrics, request log). `--store` says how:
//   pg      the insert's text through a pg Pool as large as the service's: the floor, for reference
//   kysely  the same insert built by kysely's typed builder and compiled once, run on the same pool
//   pglite  the same insert through PGlite's public API, in the folder `--url` names
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import {
  isJsonMediaType,
  listenLikeTheService,
  makeTokenCheck,
  type PlantInput,
  parsePlant,
  plantResponse,
  readBody,
  tokensFromEnv,
} from './common.ts';

const POOL_SIZE = 10;
// Each store a table of its own, shaped as the service's (migration 0001), without its other indexes.
const COLUMNS =
  'id bigint PRIMARY KEY, name text NOT NULL, tag text, created_at timestamptz NOT NULL DEFAULT now()';
const INSERT =
  'INSERT INTO $table (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id';

interface Store {
  insert(plant: PlantInput): Promise<unknown>;
  close(): Promise<void>;
}

interface Tables {
  kysely_plants: { id: string; name: string; tag: string | null };
}

async function openStore(kind: string | undefined, url: string): Promise<Store> {
  const row = (plant: PlantInput) => [plant.id.toString(), plant.name, plant.tag ?? null];
  if (kind === 'pglite') {
    // Loaded when chosen, so that the other baselines do not carry PGlite in memory.
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(url);
    await db.exec(`CREATE TABLE IF NOT EXISTS plants (${COLUMNS})`);
    const text = INSERT.replace('$table', 'plants');
    return { insert: (plant) => db.query(text, row(plant)), close: () => db.close() };
  }
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, keepAlive: true });
  pool.on('error', () => {});
  if (kind === 'pg') {
    await pool.query(`CREATE TABLE IF NOT EXISTS bench_plants (${COLUMNS})`);
    const text = INSERT.replace('$table', 'bench_plants');
    return { insert: (plant) => pool.query(text, row(plant)), close: () => pool.end() };
  }
  if (kind !== 'kysely')
    throw new Error(`usage: node-http.ts --store pg|kysely|pglite --url <url or folder>`);
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  await db.schema
    .createTable('kysely_plants')
    .ifNotExists()
    .addColumn('id', 'bigint', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('tag', 'text')
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  // Built and compiled once; each request runs it with its own parameters (kysely's recipe "splitting
  // query building and execution").
  const insert = db
    .insertInto('kysely_plants')
    .values({ id: '0', name: '', tag: null })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .compile();
  if (insert.parameters.length !== 3)
    throw new Error(`the compiled insert takes ${insert.parameters.length} parameters`);
  return {
    insert: (plant) => db.executeQuery({ ...insert, parameters: row(plant) }),
    close: () => db.destroy(),
  };
}

const { values } = parseArgs({ options: { store: { type: 'string' }, url: { type: 'string' } } });
const store = await openStore(values.store, values.url ?? '');
const isAuthorized = makeTokenCheck(tokensFromEnv(process.env));

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

const server = createServer(
  { keepAliveTimeout: 5_000, requestTimeout: 30_000, headersTimeout: 10_000 },
  (req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return answer(res, 200, { status: 'ok' });
    if (path !== '/plants') return answer(res, 404, { error: 404, message: 'not found' });
    if (req.method !== 'POST') return answer(res, 405, { error: 405, message: 'method not allowed' });
    if (!isAuthorized(req.headers.authorization))
      return answer(res, 401, { error: 401, message: 'unauthorized' });
    if (!isJsonMediaType(req.headers['content-type']))
      return answer(res, 415, { error: 415, message: 'json only' });
    readBody(req)
      .then(async (body) => {
        if (body === undefined) return answer(res, 413, { error: 413, message: 'too large' });
        const plant = parsePlant(body);
        if (typeof plant === 'string') return answer(res, 400, { error: 400, message: plant });
        await store.insert(plant);
        answer(res, 200, plantResponse(plant));
      })
      .catch(() => answer(res, 500, { error: 500, message: 'internal error' }));
  },
);

await listenLikeTheService(server, () => store.close());
