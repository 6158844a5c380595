// Growth: the service on tables of 1,000,000 and 10,000,000 plants against one of 10,000, for GET by
// id, list pages, pages by a rare tag (10,000,000 only) and creates, at c64. What these ratios measure is mostly the database's cache, so its
// state is controlled and told: every table and index read into the OS's cache just before its rounds
// (database.ts, warmGrowthTables), its size and its share of shared buffers printed with the figures.

import {
  GROWTH_SCHEMAS,
  prepareGrowthTable,
  RARE_TAG,
  resetBenchDatabase,
  sampleIds,
  warmGrowthTables,
  withClient,
  withSearchPath,
} from '../database.ts';
import {
  type Child,
  type Context,
  checkOnce,
  freshPlant,
  type Part,
  postgresUrl,
  runGroup,
  selected,
  serverSide,
  startService,
} from '../harness.ts';
import type { TargetRun } from '../report.ts';

const TABLES = [
  { size: '10k', rows: 10_000, schema: GROWTH_SCHEMAS[0] as string },
  { size: '1m', rows: 1_000_000, schema: GROWTH_SCHEMAS[1] as string },
  { size: '10m', rows: 10_000_000, schema: GROWTH_SCHEMAS[2] as string },
];
const KINDS = {
  get: 'GET /plants/{id}',
  list: 'GET /plants?limit=100',
  tag: `GET /plants?tag=${RARE_TAG}&limit=100`,
  create: 'POST /plants',
} as const;
type Kind = keyof typeof KINDS;
/** The tables each kind runs on: pages by tag on the largest alone, against the smallest. */
const SIZES: Record<Kind, readonly string[]> = {
  get: ['10k', '1m', '10m'],
  list: ['10k', '1m', '10m'],
  tag: ['10k', '10m'],
  create: ['10k', '1m', '10m'],
};
/** Ids a read picks from in a large table: about this many, drawn at random over all of it. */
const SAMPLE = 100_000;
const PAGE = 100;

interface Server {
  readonly child: Child;
  readonly note: string;
  readonly ids: string[];
  readonly pageStarts: string[];
  readonly rareStarts: string[];
}

const pick = (ids: readonly string[]) => ids[Math.floor(Math.random() * ids.length)] as string;

/** Before any load, 20 reads: each a 200, a list a page with a `Link` to the next (a full page always has one). */
async function checkReads(child: Child, traffic: { token: string; path: () => string }, kind: Kind) {
  for (let index = 0; index < 20; index += 1) {
    const { headers } = await checkOnce(child, traffic);
    if ((kind === 'list' || kind === 'tag') && headers.get('link') === null)
      throw new Error(`${child.name}: a list page answered no Link header, though more plants remain`);
  }
}

async function run(context: Context): Promise<TargetRun[]> {
  const url = postgresUrl(context);
  const chosen = (kind: Kind, size: string) =>
    SIZES[kind].includes(size) && selected(context, 'growth', `${kind}-${size}`);
  // A large table's rows bring the small table's, their baseline.
  const want = (kind: Kind, size: string) =>
    chosen(kind, size) || (size === '10k' && (chosen(kind, '1m') || chosen(kind, '10m')));
  const kinds = (Object.keys(KINDS) as Kind[]).filter((kind) => TABLES.some(({ size }) => want(kind, size)));
  if (!context.options.connections.includes(64))
    throw new Error('measured at c64, which --connections leaves out');
  await resetBenchDatabase(url);
  const servers = new Map<string, Server>();
  const runs: TargetRun[] = [];
  try {
    for (const table of TABLES.filter(({ size }) => kinds.some((kind) => want(kind, size)))) {
      await withClient(url, (client) => client.query(`CREATE SCHEMA IF NOT EXISTS "${table.schema}"`));
      const tableUrl = withSearchPath(url, table.schema);
      const plants = table.rows.toLocaleString('en-US');
      const child = await startService(context, `service (${plants} plants)`, { DATABASE_URL: tableUrl });
      servers.set(table.size, { child, note: '', ids: [], pageStarts: [], rareStarts: [] });
      context.log(`  ${table.schema}: preparing ${plants} plants (seeding anew takes about 6 s a million)`);
      const note = `${plants} plants in schema ${table.schema}, ${await prepareGrowthTable(tableUrl, table.rows)}`;
      servers.set(table.size, { child, note, ...(await sampleIds(tableUrl, table.rows, SAMPLE, PAGE)) });
      context.log(`  ${note}`);
    }
    for (const kind of kinds) {
      const tables = TABLES.filter(({ size }) => want(kind, size) && servers.has(size));
      const state = await warmGrowthTables(
        url,
        tables.map(({ schema }) => schema),
      );
      for (const line of state) context.log(`  ${line}`);
      const sides = tables.map((table, index) => {
        const server = servers.get(table.size) as Server;
        const reads = (path: () => string) => ({
          traffic: { token: context.token, path },
          check: (child: Child) => checkReads(child, { token: context.token, path }, kind),
        });
        const load = {
          get: () => reads(() => `/plants/${pick(server.ids)}`),
          list: () => reads(() => `/plants?limit=${PAGE}&after=${pick(server.pageStarts)}`),
          tag: () => reads(() => `/plants?tag=${RARE_TAG}&limit=${PAGE}&after=${pick(server.rareStarts)}`),
          create: () => ({ traffic: { token: context.token, body: freshPlant } }),
        }[kind]();
        return serverSide(context, {
          key: `${kind}-${table.size}`,
          label: `service, PostgreSQL, ${KINDS[kind]}, ${table.rows.toLocaleString('en-US')} plants`,
          baselines: table.size === '10k' ? [] : [`${kind}-10k`],
          levels: [64],
          shared: true,
          launch: async (run) => {
            run.notes.push(`${server.note}; ${state[index]}`);
            return server.child;
          },
          ...load,
        });
      });
      runs.push(...(await runGroup(context, sides)));
    }
  } finally {
    for (const server of servers.values()) await server.child.stop();
  }
  return runs;
}

export const growthPart: Part = {
  name: 'growth',
  keys: (Object.keys(KINDS) as Kind[]).flatMap((kind) => SIZES[kind].map((size) => `${kind}-${size}`)),
  usesPostgres: true,
  run,
};
