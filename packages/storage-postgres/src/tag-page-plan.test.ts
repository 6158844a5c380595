import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createTestSchema,
  EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  provideTestPostgres,
} from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';
import { openPostgresPlantStorage } from './open-postgres-plant-storage.ts';
import { LIST_TAG_AFTER, LIST_TAG_FIRST } from './plant-statements.ts';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

type Query = (text: string, values?: readonly unknown[]) => Promise<readonly Record<string, unknown>[]>;

// Enough plants of other tags that reading them (a Seq Scan, or the id-ordered page indexes with a
// filter) costs the planner far more than the tag's indexes do: it picks those by itself, with no
// planner setting turned off. 1,000 tags; a tenth of the plants without one; 1 in 40 long.
const FILL = [
  `insert into plants (id, name, tag)
     select g, 'plant ' || g, case when g % 10 = 0 then null else 'tag ' || (g % 1000) end
     from generate_series(1, 200000) g`,
  `insert into plants (id, name, tag)
     select g, repeat('long ', 500), 'tag ' || (g % 1000) from generate_series(200001, 205000) g`,
  // The visibility map, so that the covering index needs no heap visit; and the statistics.
  'vacuum analyze plants',
];

/** A scan of the plants table in a plan, with the node it feeds. */
interface Scan {
  readonly node: string;
  readonly index: string | undefined;
  readonly parent: string;
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

/** Every node type of the plan, and the scans of plants with their parents. */
function readPlan(root: PlanNode): { nodes: string[]; scans: Scan[] } {
  const nodes: string[] = [];
  const scans: Scan[] = [];
  const visit = (node: PlanNode, parent: string): void => {
    nodes.push(node['Node Type']);
    if (node['Relation Name'] === 'plants') {
      scans.push({ node: node['Node Type'], index: node['Index Name'], parent });
    }
    for (const child of node.Plans ?? []) visit(child, node['Node Type']);
  };
  visit(root, '');
  return { nodes, scans: scans.sort((a, b) => `${a.index}`.localeCompare(`${b.index}`)) };
}

/** The plan EXPLAIN (FORMAT JSON) answered, read. */
function planOf(rows: readonly Record<string, unknown>[]): ReturnType<typeof readPlan> {
  const [explained] = (rows[0]?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[];
  if (explained === undefined) throw new Error('EXPLAIN answered no plan');
  return readPlan(explained.Plan);
}

const PAGE = { upTo: 101, maxBytes: '1048576', tag: 'tag 5' };

/**
 * The plans of the tag page statements, as a server runs them prepared (its generic plan) and as
 * PGlite, or a server without named statements, runs them (a plan for the values of each call).
 */
async function tagPagePlans(query: Query): Promise<Record<string, ReturnType<typeof readPlan>>> {
  const plans: Record<string, ReturnType<typeof readPlan>> = {};
  for (const [statement, bound] of [
    [LIST_TAG_FIRST, LIST_TAG_FIRST.bind(PAGE)],
    [LIST_TAG_AFTER, LIST_TAG_AFTER.bind({ ...PAGE, after: '1000' })],
  ] as const) {
    plans[`${statement.name}, custom`] = planOf(
      await query(`explain (format json) ${bound.sql}`, bound.parameters),
    );
    await query('set plan_cache_mode = force_generic_plan');
    await query(`prepare tag_page as ${bound.sql}`);
    plans[`${statement.name}, generic`] = planOf(
      await query(
        `explain (format json) execute tag_page (${bound.parameters.map((value) => `'${value}'`).join(', ')})`,
      ),
    );
    await query('deallocate tag_page');
    await query('reset plan_cache_mode');
  }
  return plans;
}

/**
 * What makes a page by tag cost the same however many plants carry other tags: each run of plants is
 * read from a tag index in id order and stops at the page's limit (its scan feeds a Limit directly,
 * never a Sort of every match), and nothing reads the table whole.
 */
function expectIndexedTagPages(plans: Record<string, ReturnType<typeof readPlan>>): void {
  expect(Object.keys(plans)).toHaveLength(4);
  for (const [name, { nodes, scans }] of Object.entries(plans)) {
    expect(scans, name).toStrictEqual([
      { node: 'Index Only Scan', index: 'plants_tag_page', parent: 'Limit' },
      { node: 'Index Scan', index: 'plants_tag_page_long', parent: 'Limit' },
    ]);
    expect(
      nodes.filter((node) => /Seq Scan|Bitmap/.test(node)),
      name,
    ).toStrictEqual([]);
  }
}

describe('a page by tag, planned on a table of 205,000 plants of 1,000 tags', () => {
  it('when PGlite plans it, then each run is an index scan of a tag index in id order, stopped by the limit, and no scan reads the table', {
    timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  }, async () => {
    const storage = await openPglitePlantStorage();
    try {
      const query: Query = async (text, values) =>
        (await storage.pglite.query(text, values as unknown[])).rows as Record<string, unknown>[];
      for (const statement of FILL) await query(statement);
      expectIndexedTagPages(await tagPagePlans(query));
      const page = await storage.plants.listAfter(undefined, 100, undefined, 'tag 5');
      expect(page.more).toBe(true);
      expect(page.plants.map((plant) => plant.id)).toStrictEqual(
        [
          ...Array.from({ length: 200 }, (_, i) => BigInt(5 + 1000 * i)).filter((id) => id % 10n !== 0n),
        ].slice(0, 100),
      );
    } finally {
      await storage.close();
    }
  });

  // The statements operators of large stores run beforehand must build the very indexes the statements use.
  it.skipIf(!server).each([
    ['built by the migration', false],
    ['created with CONCURRENTLY from the statements docs/storage.md gives', true],
  ])(
    `when the PostgreSQL server (${server?.source ?? 'none'}) plans it, with the indexes %s, then each run is an index scan of a tag index in id order, stopped by the limit, and no scan reads the table`,
    async (_how, fromDocs) => {
      const fresh = await createTestSchema(server?.connectionString ?? '', 'tag_plans');
      const storage = await openPostgresPlantStorage({ connectionString: fresh.connectionString });
      const client = new pg.Client({ connectionString: fresh.connectionString });
      await client.connect();
      try {
        const query: Query = async (text, values) =>
          (await client.query(text, values ? [...values] : [])).rows;
        if (fromDocs) {
          const page = readFileSync(
            join(import.meta.dirname, '..', '..', '..', 'docs', 'storage.md'),
            'utf8',
          );
          const statements =
            page.match(/CREATE INDEX CONCURRENTLY IF NOT EXISTS plants_tag_page[^;]+;/g) ?? [];
          expect(statements).toHaveLength(2);
          await query('drop index plants_tag_page; drop index plants_tag_page_long');
          for (const statement of statements) await query(statement);
        }
        for (const statement of FILL) await query(statement);
        expectIndexedTagPages(await tagPagePlans(query));
        const page = await storage.plants.listAfter(1000n, 3, undefined, 'tag 5');
        expect(page).toStrictEqual({
          plants: [1005n, 2005n, 3005n].map((id) => ({ id, name: `plant ${id}`, tag: 'tag 5' })),
          more: true,
        });
      } finally {
        await client.end();
        await storage.close();
        await fresh.cleanup();
      }
    },
  );
});
