// Baseline of the reads on PostgreSQL: a bare node:http server doing what the service does for
// `GET /plants/{id}` and `GET /plants?limit=&after=` (token check, plain-decimal int64 parse, one
// SELECT on the service's own `plants` table through a pg Pool as large as the service's (10), the
// same JSON answer and `Link` header), and nothing else. It reads the table the service created and
// the bench seeded; it creates nothing. `node bare-pg-reads.ts --pg <url>`.
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { listenLikeTheService } from './listen.ts';
import { makeTokenCheck, tokensFromEnv } from './plant-request.ts';

const POOL_SIZE = 10;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// As the service reads an id in a URL: "0", or digits without a leading zero after an optional "-".
const PLAIN_DECIMAL = /^(?:0|-?[1-9][0-9]*)$/;
const LIMIT = /^[1-9][0-9]{0,3}$/;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const { values } = parseArgs({ options: { pg: { type: 'string' } } });
if (values.pg === undefined) throw new Error('usage: bare-pg-reads.ts --pg <postgres url>');
// int8 stays the text pg receives (its default): written as it is into the JSON, so ids above 2^53
// are exact without a BigInt round trip.
const pool = new pg.Pool({ connectionString: values.pg, max: POOL_SIZE, keepAlive: true });
pool.on('error', () => {});

interface PlantRow {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

const isAuthorized = makeTokenCheck(tokensFromEnv(process.env));

function answerText(res: ServerResponse, status: number, text: string, link?: string): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...(link === undefined ? {} : { Link: link }),
  });
  res.end(text);
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  answerText(res, status, JSON.stringify(body));
}

/** The id as an int64, or undefined when it is not one in plain decimal. */
function int64(text: string | null | undefined): bigint | undefined {
  if (text === null || text === undefined || text.length > 20 || !PLAIN_DECIMAL.test(text)) return undefined;
  const id = BigInt(text);
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

async function getById(res: ServerResponse, id: bigint): Promise<void> {
  const { rows } = await pool.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = $1', [
    id.toString(),
  ]);
  const row = rows[0];
  if (row === undefined) return answer(res, 404, { error: 404, message: 'no plant has this id' });
  answer(res, 200, row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag });
}

// One row more than the page, as the service reads it: it says whether a next page follows (the
// `Link` header) without a count or a second query.
async function listAfter(res: ServerResponse, limit: number, after: bigint | undefined): Promise<void> {
  const { rows } =
    after === undefined
      ? await pool.query<PlantRow>('SELECT id, name, tag FROM plants ORDER BY id LIMIT $1', [limit + 1])
      : await pool.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id > $1 ORDER BY id LIMIT $2', [
          after.toString(),
          limit + 1,
        ]);
  const page = rows.length > limit ? rows.slice(0, limit) : rows;
  const items = page.map(
    (row) =>
      `{"id":${row.id},"name":${JSON.stringify(row.name)}${row.tag === null ? '' : `,"tag":${JSON.stringify(row.tag)}`}}`,
  );
  const last = page.at(-1);
  const link =
    rows.length > limit && last !== undefined
      ? `</plants?limit=${limit}&after=${last.id}>; rel="next"`
      : undefined;
  answerText(res, 200, `[${items.join(',')}]`, link);
}

const server = createServer(
  { keepAliveTimeout: 5_000, requestTimeout: 30_000, headersTimeout: 10_000 },
  (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/healthz') return answer(res, 200, { status: 'ok' });
    const isList = path === '/plants';
    const isOne = path.startsWith('/plants/') && path.indexOf('/', 8) === -1;
    if (!isList && !isOne) return answer(res, 404, { error: 404, message: 'not found' });
    if (req.method !== 'GET') return answer(res, 405, { error: 405, message: 'method not allowed' });
    if (!isAuthorized(req.headers.authorization))
      return answer(res, 401, { error: 401, message: 'unauthorized' });
    let work: Promise<void>;
    if (isOne) {
      const id = int64(decodeURIComponent(path.slice('/plants/'.length)));
      if (id === undefined) return answer(res, 400, { error: 400, message: 'id must be an int64' });
      work = getById(res, id);
    } else {
      const limitText = url.searchParams.get('limit');
      if (limitText !== null && (!LIMIT.test(limitText) || Number(limitText) > MAX_LIMIT))
        return answer(res, 400, { error: 400, message: 'limit must be an integer from 1 to 1000' });
      const afterText = url.searchParams.get('after');
      const after = afterText === null ? undefined : int64(afterText);
      if (afterText !== null && after === undefined)
        return answer(res, 400, { error: 400, message: 'after must be an int64' });
      work = listAfter(res, limitText === null ? DEFAULT_LIMIT : Number(limitText), after);
    }
    work.catch(() => answer(res, 500, { error: 500, message: 'internal error' }));
  },
);

await listenLikeTheService(server, async () => {
  await pool.end();
});
