// The operations beside a create, on one service on memory: (no storage behind it: CPU per request is
// the operation's own path), at c16: PUT replacing a plant against a create, and GET by id answered
// 304 to an If-None-Match naming the plant's ETag against the same GET answered 200. All sides load
// the same process in turn, so that each is compared to its baseline on the same heap and store.
import {
  type Child,
  type Context,
  freshId,
  freshPlant,
  type Part,
  plantBody,
  runGroup,
  selected,
  serverSide,
  startService,
} from '../harness.ts';
import type { TargetRun } from '../report.ts';

/** Plants each of PUT and GET picks from, created before any load. */
const POOL = 1_000;
const LEVEL = 16;

const pick = (ids: readonly bigint[]) => ids[Math.floor(Math.random() * ids.length)] as bigint;

/** `count` plants created on `child` (the create's body), 16 at a time; answers their ids. */
async function createPlants(child: Child, token: string, count: number): Promise<bigint[]> {
  const ids = Array.from({ length: count }, freshId);
  for (let from = 0; from < ids.length; from += 16)
    await Promise.all(
      ids.slice(from, from + 16).map(async (id) => {
        const response = await fetch(`${child.url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: plantBody(id),
        });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${child.name}: creating a plant answered ${response.status}`);
      }),
    );
  return ids;
}

/** The ETag GET answers for `id`: every plant of a pool has the same content, hence the same tag. */
async function etagOf(child: Child, token: string, id: bigint): Promise<string> {
  const response = await fetch(`${child.url}/plants/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await response.arrayBuffer();
  const etag = response.headers.get('etag');
  if (!response.ok || etag === null)
    throw new Error(`${child.name}: GET answered ${response.status} with ETag ${etag}`);
  return etag;
}

async function run(context: Context): Promise<TargetRun[]> {
  const want = (key: string) => selected(context, 'operations', key);
  if (!context.options.connections.includes(LEVEL))
    throw new Error(`measured at c${LEVEL}, which --connections leaves out`);
  const child = await startService(context, 'service (memory:, operations)', { DATABASE_URL: 'memory:' });
  try {
    const { token } = context;
    const replaced = await createPlants(child, token, POOL);
    const read = await createPlants(child, token, POOL);
    const etag = await etagOf(child, token, read[0] as bigint);
    // Each PUT names the other of two names at random, so that most change the plant they replace.
    const names = ['Monstera deliciosa', 'Monstera adansonii'];
    const side = (
      key: string,
      label: string,
      traffic: Parameters<typeof serverSide>[1]['traffic'],
      baseline?: string,
    ) =>
      serverSide(context, {
        key,
        label: `service, memory:, ${label}`,
        ...(baseline === undefined ? {} : { baselines: [baseline] }),
        levels: [LEVEL],
        shared: true,
        launch: async () => child,
        traffic,
      });
    const sides = [
      ...(want('create') || want('put')
        ? [side('create', 'POST /plants (a create)', { token, body: freshPlant })]
        : []),
      ...(want('put')
        ? [
            side(
              'put',
              'PUT /plants/{id} (a replacement)',
              {
                token,
                method: 'PUT',
                path: () => `/plants/${pick(replaced)}`,
                body: () => `{"name":"${names[Math.round(Math.random())]}","tag":"aroid"}`,
              },
              'create',
            ),
          ]
        : []),
      ...(want('get-200') || want('get-304')
        ? [side('get-200', 'GET /plants/{id} answered 200', { token, path: () => `/plants/${pick(read)}` })]
        : []),
      ...(want('get-304')
        ? [
            side(
              'get-304',
              'GET /plants/{id} with If-None-Match, answered 304',
              { token, path: () => `/plants/${pick(read)}`, headers: { 'if-none-match': etag }, expect: 304 },
              'get-200',
            ),
          ]
        : []),
    ];
    return await runGroup(context, sides, { connections: [LEVEL] });
  } finally {
    await child.stop();
  }
}

export const operationsPart: Part = {
  name: 'operations',
  keys: ['create', 'put', 'get-200', 'get-304'],
  usesPostgres: false,
  run,
};
