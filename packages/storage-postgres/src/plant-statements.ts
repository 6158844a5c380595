import { MAX_PAGE_LIMIT } from '@plant-store/domain';
import {
  type Compilable,
  type CompiledQuery,
  DummyDriver,
  type ExpressionBuilder,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  sql,
} from 'kysely';
import type { PlantDatabase } from './plant-database.ts';

// Builds and compiles only, never runs: each statement is compiled once, at load, and every call runs
// that compiled query with its own parameters (kysely's "splitting query building and execution").
const builder = new Kysely<PlantDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Where a statement's parameter goes: its value is given by this name on every call. */
class Slot {
  readonly key: string;
  constructor(key: string) {
    this.key = key;
  }
}

/** A statement compiled once: its text, the name a connection may prepare it under, and its calls. */
export interface PlantStatement<Values, Row> {
  /** The name under which a connection may prepare it (see the Postgres driver's named statements). */
  readonly name: string;
  readonly sql: string;
  /** The compiled query with these values as its parameters, for `db.executeQuery`. */
  bind(values: Values): CompiledQuery<Row>;
}

/**
 * Compiles `build`'s query once. `value<T>(key)` stands for the parameter `key` of `Values`, typed
 * `T` in SQL; a key used twice is two parameters, both bound to the same value.
 */
// Filled as each statement is compiled, so that none can be left out of PLANT_STATEMENT_NAMES.
const named = new Map<string, string>();

function statement<Values extends Record<string, unknown>>() {
  return <Row>(
    name: string,
    build: (value: <T>(key: keyof Values & string) => RawBuilder<T>) => Compilable<Row>,
  ): PlantStatement<Values, Row> => {
    const compiled = build((key) => sql`${new Slot(key)}`).compile();
    const keys = compiled.parameters.map((parameter) => {
      // A literal the builder made a parameter would be sent unchanged on every call: refused here, at load.
      if (!(parameter instanceof Slot))
        throw new Error(`${name}: a parameter that is not a value(): ${parameter}`);
      return parameter.key;
    });
    named.set(compiled.sql, name);
    return {
      name,
      sql: compiled.sql,
      bind: (values) => ({ ...compiled, parameters: keys.map((key) => values[key]) }),
    };
  };
}

// An int8 is sent as its decimal text: exact at any size, whatever the driver does with a bigint.
type Int8 = string;

// The plants of one insert, as three arrays: one text serves every batch size.
type PlantArrays = { ids: Int8[]; names: string[]; tags: (string | null)[] };
type OnePlant = { id: Int8; name: string; tag: string | null };

const unnestPlants = (value: <T>(key: keyof PlantArrays & string) => RawBuilder<T>) =>
  sql<{
    id: bigint;
    name: string;
    tag: string | null;
  }>`unnest(${value('ids')}::int8[], ${value('names')}::text[], ${value('tags')}::text[])`.as<'batch'>(
    sql`batch(id, name, tag)`,
  );

// Of racing inserts the primary key lets exactly one through, and ON CONFLICT makes the others wait
// for it to commit, then do nothing: the returned ids are those this statement stored.
export const INSERT_PLANTS = statement<PlantArrays>()('plant_store_insert_plants', (value) =>
  builder
    .insertInto('plants')
    .columns(['id', 'name', 'tag'])
    .expression((eb) => eb.selectFrom(unnestPlants(value)).selectAll())
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id'),
);

// A trace context (the W3C carrier as JSON) is sent as text and made jsonb by the server: a driver
// that serialises jsonb parameters itself (PGlite) would otherwise encode the JSON text once more.
const traceContextOf = (text: RawBuilder<string | null>) =>
  sql<Record<string, string> | null>`${text}::jsonb`.as('trace_context');

// The same, with the outbox: a data-modifying CTE also writes the event of each of the ids in
// `recordFor` that the INSERT stored, with the trace context at the same place of `traceContexts`,
// so a plant and its event commit (or not) together.
export const INSERT_PLANTS_AND_EVENTS = statement<
  PlantArrays & { recordFor: Int8[]; traceContexts: (string | null)[] }
>()('plant_store_insert_plants_and_events', (value) =>
  builder
    .with('inserted', (db) =>
      db
        .insertInto('plants')
        .columns(['id', 'name', 'tag'])
        .expression((eb) => eb.selectFrom(unnestPlants(value)).selectAll())
        .onConflict((oc) => oc.column('id').doNothing())
        .returning(['id', 'name', 'tag']),
    )
    .with('recorded', (db) =>
      db
        .insertInto('plant_events')
        .columns(['plant_id', 'name', 'tag', 'trace_context'])
        .expression(
          db
            .selectFrom('inserted')
            .innerJoin(
              sql<{
                id: bigint;
                trace_context: string | null;
              }>`unnest(${value('recordFor')}::int8[], ${value('traceContexts')}::text[])`.as<'recording'>(
                sql`recording(id, trace_context)`,
              ),
              'recording.id',
              'inserted.id',
            )
            .select([
              'inserted.id',
              'inserted.name',
              'inserted.tag',
              traceContextOf(sql.ref<string | null>('recording.trace_context')),
            ]),
        ),
    )
    .selectFrom('inserted')
    .select('id'),
);

// A batch of one (every create without concurrency) as a one-row VALUES: the server runs it sooner
// than the unnest() form, and that is what a create waits for at c1.
export const INSERT_PLANT = statement<OnePlant>()('plant_store_insert_plant', (value) =>
  builder
    .insertInto('plants')
    .values({ id: value('id'), name: value('name'), tag: value('tag') })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id'),
);

export const INSERT_PLANT_AND_EVENT = statement<OnePlant & { traceContext: string | null }>()(
  'plant_store_insert_plant_and_event',
  (value) =>
    builder
      .with('inserted', (db) =>
        db
          .insertInto('plants')
          .values({ id: value('id'), name: value('name'), tag: value('tag') })
          .onConflict((oc) => oc.column('id').doNothing())
          .returning(['id', 'name', 'tag']),
      )
      .with('recorded', (db) =>
        db
          .insertInto('plant_events')
          .columns(['plant_id', 'name', 'tag', 'trace_context'])
          .expression(
            db
              .selectFrom('inserted')
              .select(['id', 'name', 'tag', traceContextOf(sql`${value('traceContext')}::text`)]),
          ),
      )
      .selectFrom('inserted')
      .select('id'),
);

export const FIND_BY_ID = statement<{ id: Int8 }>()('plant_store_find_by_id', (value) =>
  builder.selectFrom('plants').select(['id', 'name', 'tag']).where('id', '=', value<bigint>('id')),
);

// The plants a batch's inserts conflicted with (a retry, a race, another content), read back once committed.
export const FIND_BY_IDS = statement<{ ids: Int8[] }>()('plant_store_find_by_ids', (value) =>
  builder
    .selectFrom('plants')
    .select(['id', 'name', 'tag'])
    .where('id', '=', (eb) => eb.fn.any(sql<bigint[]>`${value('ids')}::int8[]`)),
);

// One statement: of concurrent deletes of one id, the row lock lets one delete it, and the others,
// once it has committed, find nothing.
export const DELETE_BY_ID = statement<{ id: Int8 }>()('plant_store_delete_by_id', (value) =>
  builder.deleteFrom('plants').where('id', '=', value<bigint>('id')).returning('id'),
);

type ExpectedValues = { expectedName: string; expectedTag: string | null };

/** The row holds exactly the expected content: an absent tag is NULL, and NULL matches only NULL. */
const holdsExpected =
  (value: <T>(key: keyof ExpectedValues & string) => RawBuilder<T>) =>
  (eb: ExpressionBuilder<PlantDatabase, 'plants'>) =>
    eb.and([
      eb('name', '=', value<string>('expectedName')),
      eb('tag', 'is not distinct from', value<string | null>('expectedTag')),
    ]);

// The same, only while the plant holds the content the caller expects: the row lock makes the
// comparison and the delete one step, so of concurrent deletes expecting one content one deletes it.
export const DELETE_BY_ID_IF = statement<{ id: Int8 } & ExpectedValues>()(
  'plant_store_delete_by_id_if',
  (value) =>
    builder
      .deleteFrom('plants')
      .where('id', '=', value<bigint>('id'))
      .where(holdsExpected(value))
      .returning('id'),
);

// A change of a plant, every form of it (a replacement, a merge patch of either member or both) in one
// text: `name` NULL keeps the name, `setTag` false keeps the tag. Each member is computed from the row
// as the UPDATE finds it, once it holds the row lock (READ COMMITTED rechecks a row a concurrent write
// changed, on its new version), so a change of one member never undoes a concurrent change of the other.
type ChangeValues = { id: Int8; name: string | null; setTag: boolean; tag: string | null };

const changePlant = (value: <T>(key: keyof ChangeValues & string) => RawBuilder<T>) =>
  builder
    .updateTable('plants')
    .set((eb) => ({
      name: eb.fn.coalesce(sql<string | null>`${value('name')}::text`, eb.ref('name')),
      tag: eb
        .case()
        .when(sql<boolean>`${value('setTag')}::boolean`)
        .then(sql<string | null>`${value('tag')}::text`)
        .else(eb.ref('tag'))
        .end(),
    }))
    .where('id', '=', value<bigint>('id'));

export const UPDATE_PLANT = statement<ChangeValues>()('plant_store_update_plant', (value) =>
  changePlant(value).returning(['id', 'name', 'tag']),
);

// The conditional write: the comparison is in the WHERE, rechecked on the row's newest version once
// its lock is held, so of concurrent writers expecting one content exactly one changes it.
export const UPDATE_PLANT_IF = statement<ChangeValues & ExpectedValues>()(
  'plant_store_update_plant_if',
  (value) => changePlant(value).where(holdsExpected(value)).returning(['id', 'name', 'tag']),
);

// A plant's bytes in a list page, and the predicates of migration 0003's two partial indexes: the
// planner uses a partial index only for a query that implies its predicate, so these say the same.
const BYTES = sql<number>`octet_length(name) + coalesce(octet_length(tag), 0)`;
const SHORT = sql<boolean>`${BYTES} <= 2000`;
const LONG = sql<boolean>`${BYTES} > 2000`;
// A running count and sum in id order (counts of plants and bytes, never returned: numbers here). ROWS, not the default RANGE: no peers to look for, ids are unique.
const RUNNING = sql`over (order by id rows between unbounded preceding and current row)`;

type PageValues = { after: Int8; upTo: number; maxBytes: Int8 };

/**
 * The most plants a page statement reads: the largest page and the plant after it. The server
 * reckons a LIMIT given as a parameter at a tenth of the rows under it, so on a large table a generic
 * plan of `LIMIT $n` alone seems dearer than a plan made for each call's values, and it plans every
 * call anew, which on a large table costs more than the page's execution (bench/PROFILE.md). Under a
 * constant LIMIT of this many, that tenth is a page's worth whatever the table holds.
 */
export const PAGE_READ_CAP = MAX_PAGE_LIMIT + 1;

// The tag tests of a page by tag, in the very expressions of migration 0005's indexes. Compared in the
// "C" collation, as the covering index holds tags: byte for byte, and an index serves only a query of
// its collation. A long plant's index holds its tag's SHA-256 (a tag may exceed an index key): of its
// UTF-8 bytes, since text::bytea reads a backslash as an escape unless it is doubled. Both indexes
// have SHORT's or LONG's predicate and `tag IS NOT NULL`, which either test implies (it is strict).
const hasTag = (tag: RawBuilder<string>) => sql<boolean>`${sql.ref('tag')} collate "C" = ${tag}::text`;
const digest = (text: RawBuilder<string>) =>
  sql`sha256(replace(${text}, chr(92), chr(92) || chr(92))::bytea)`;
const hasTagDigest = (tag: RawBuilder<string>) =>
  sql<boolean>`${digest(sql.ref('tag'))} = ${digest(sql`${tag}::text`)}`;

/**
 * A page in id order, keyset-paginated (`id > after`, never OFFSET), from the two indexes of migration
 * 0003: the plants whose name and tag fit in an index entry come from the covering index alone (an
 * index-only scan), the others from the small index of the long ones; the two ordered runs are merged.
 * With `tag`, from the two indexes of migration 0005 alike, by tag then id: the long run finds its
 * plants by the tag's digest and keeps those whose tag is the very text (outside the run's LIMIT, so
 * the planner reckons with the digest alone, and reads the run in id order from the index).
 *
 * It reads the first `upTo` (the page's limit + 1) plants and keeps the first `upTo` - 1 of them while
 * their running sum of bytes stays within `maxBytes` (the first always); the first plant it does not
 * keep comes without its name and tag, to say that more follow. octet_length reads a long value's
 * size from its TOAST pointer, so a plant past the budget is never read whole, nor sent. The limits
 * on the runs and the whole are all `upTo`, not one per page size, and each run is `capped` by
 * PAGE_READ_CAP first: the server plans the statement once, not per call, on any table (an `upTo`
 * beyond the cap needs the statements without it).
 */
function listPage(
  value: <T>(key: 'upTo' | 'maxBytes') => RawBuilder<T>,
  after: RawBuilder<bigint> | undefined,
  tag: RawBuilder<string> | undefined,
  capped: boolean,
) {
  const run = (predicate: RawBuilder<boolean>, key: RawBuilder<boolean> | undefined) => {
    const all = builder.selectFrom('plants').select(['id', 'name', 'tag']);
    const keyed = key === undefined ? all : all.where(key);
    const ordered = (after === undefined ? keyed : keyed.where('id', '>', after))
      .where(predicate)
      .orderBy('id');
    if (!capped) return ordered.limit(value<number>('upTo'));
    return builder
      .selectFrom(ordered.limit(sql.lit(PAGE_READ_CAP)).as('run'))
      .selectAll()
      .orderBy('id')
      .limit(value<number>('upTo'));
  };
  const long = builder.selectFrom(run(LONG, tag && hasTagDigest(tag)).as('long')).selectAll();
  const candidates = builder
    .selectFrom(run(SHORT, tag && hasTag(tag)).as('short'))
    .selectAll()
    .unionAll(tag === undefined ? long : long.where(hasTag(tag)))
    .orderBy('id')
    .limit(value<number>('upTo'));
  const counted = builder
    .selectFrom(
      builder
        .selectFrom(candidates.as('candidates'))
        .select(['id', 'name', 'tag', BYTES.as('bytes')])
        .as('sized'),
    )
    .select([
      'id',
      'name',
      'tag',
      'bytes',
      sql<number>`row_number() ${RUNNING}`.as('n'),
      sql<number>`sum(bytes) ${RUNNING}`.as('total'),
    ]);
  const judged = builder
    .selectFrom(counted.as('counted'))
    .select((eb) => [
      'id',
      'name',
      'tag',
      eb
        .and([
          eb('n', '<', value<number>('upTo')),
          eb.or([eb('n', '=', eb.lit(1)), eb('total', '<=', value<number>('maxBytes'))]),
        ])
        .as('kept'),
      eb
        .or([
          eb('n', '<=', eb.lit(2)),
          eb(eb('total', '-', eb.ref('bytes')), '<=', value<number>('maxBytes')),
        ])
        .as('shown'),
    ]);
  return builder
    .selectFrom(judged.as('page'))
    .select((eb) => [
      'id',
      eb.case().when(eb.ref('kept')).then(eb.ref('name')).end().as('name'),
      eb.case().when(eb.ref('kept')).then(eb.ref('tag')).end().as('tag'),
      'kept',
    ])
    .where((eb) => eb.ref('shown'))
    .orderBy('id')
    .limit(value<number>('upTo'));
}

type TagPageValues = PageValues & { tag: string };

/** The four page statements, for an `upTo` of PAGE_READ_CAP at most (`capped`) or of any size. */
function pageStatements(capped: boolean) {
  const named = (name: string) => (capped ? name : `${name}_uncapped`);
  return {
    first: statement<Omit<PageValues, 'after'>>()(named('plant_store_list_first'), (value) =>
      listPage(value, undefined, undefined, capped),
    ),
    after: statement<PageValues>()(named('plant_store_list_after'), (value) =>
      listPage(value, value('after'), undefined, capped),
    ),
    tagFirst: statement<Omit<TagPageValues, 'after'>>()(named('plant_store_list_tag_first'), (value) =>
      listPage(value, undefined, value('tag'), capped),
    ),
    tagAfter: statement<TagPageValues>()(named('plant_store_list_tag_after'), (value) =>
      listPage(value, value('after'), value('tag'), capped),
    ),
  };
}

/** The page statements of every page the API serves. */
export const PAGES = pageStatements(true);
export const {
  first: LIST_FIRST,
  after: LIST_AFTER,
  tagFirst: LIST_TAG_FIRST,
  tagAfter: LIST_TAG_AFTER,
} = PAGES;
/** The same for pages larger than the API's (the repository's `limit` has no bound of its own). */
export const UNCAPPED_PAGES = pageStatements(false);

/** Each statement's text and the name a connection may prepare it under. */
export const PLANT_STATEMENT_NAMES: ReadonlyMap<string, string> = named;
