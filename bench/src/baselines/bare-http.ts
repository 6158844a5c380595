// Baseline (a), and (b) with `--pg <url>`: a bare node:http server doing what the service does for
// `POST /plants` (token check, body read, exact int64 parse, minimal validation, JSON answer) and,
// with --pg, one INSERT per request through a pg Pool as large as the service's (10).
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { listenLikeTheService } from './listen.ts';
import {
  isJsonMediaType,
  makeTokenCheck,
  type PlantInput,
  parsePlant,
  plantResponse,
  readBody,
  tokensFromEnv,
} from './plant-request.ts';

const POOL_SIZE = 10;

const { values } = parseArgs({ options: { pg: { type: 'string' } } });
const pool =
  values.pg === undefined
    ? undefined
    : new pg.Pool({ connectionString: values.pg, max: POOL_SIZE, keepAlive: true });
pool?.on('error', () => {});
if (pool) {
  // The same shape as the service's plants table.
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_plants (id bigint PRIMARY KEY, name text NOT NULL, tag text, created_at timestamptz NOT NULL DEFAULT now())',
  );
}

const store = pool
  ? async (plant: PlantInput): Promise<void> => {
      await pool.query(
        'INSERT INTO bench_plants (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [plant.id.toString(), plant.name, plant.tag ?? null],
      );
    }
  : async (): Promise<void> => {};

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
        await store(plant);
        answer(res, 200, plantResponse(plant));
      })
      .catch(() => answer(res, 500, { error: 500, message: 'internal error' }));
  },
);

await listenLikeTheService(server, async () => {
  await pool?.end();
});
