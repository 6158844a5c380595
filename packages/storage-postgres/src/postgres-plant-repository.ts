import type {
  InsertOutcome,
  NewPlant,
  PlantCreated,
  PlantEventOutbox,
  PlantRepository,
  RecordedEvent,
} from '@plant-store/domain';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { type GroupCommitOptions, groupCommit } from './group-commit.ts';
import type { PlantDatabase } from './plant-database.ts';
import { isUnavailableError, mapStorageErrors } from './storage-errors.ts';

interface PlantRow {
  id: bigint | string | number;
  name: string;
  tag: string | null;
}

/** A row of a list page: a plant it keeps, or (kept false, without name and tag) the first that follows them. */
interface PageRow extends PlantRow {
  kept: boolean;
}

// A budget no page reaches: the largest int8, as the statements' parameter.
const UNBOUNDED = '9223372036854775807';

// BigInt() keeps the id exact even on a Kysely built without our int8 parser, where pg hands
// int8 over as a string and PGlite as a number when it is safe.
function toNewPlant(row: PlantRow): NewPlant {
  const id = BigInt(row.id);
  return row.tag === null ? { id, name: row.name } : { id, name: row.name, tag: row.tag };
}

// A delete can remove the row an insert conflicted with before the insert reads it back; the
// insert is then tried again. Each further round needs yet another create and delete of that id to
// land between two statements of ours: the bound is never reached by chance.
const MAX_INSERT_ROUNDS = 100;

/**
 * Inserts a batch of plants with one statement, and answers each plant in order as if they had
 * been inserted one after the other: the database decides between batches (the primary key and
 * ON CONFLICT, as for a single insert), and within the batch the first plant of an id is the one
 * sent, the others of that id are settled against it.
 */
/** One call of insertIfAbsent: the plant, and its event when the caller has one to record. */
interface InsertItem {
  readonly plant: NewPlant;
  readonly created?: PlantCreated | undefined;
}

// The one statement that stores plants, as fixed texts: the rows go in as three arrays (unnest), so
// one text serves every batch size and nothing is built or compiled per call (kysely's query
// builder cost more CPU than the rest of a create's database work). Of racing inserts the primary
// key lets exactly one through, and ON CONFLICT makes the others wait for it to commit, then do nothing.
const INSERT_PLANTS = `insert into plants (id, name, tag)
  select * from unnest($1::int8[], $2::text[], $3::text[])
  on conflict (id) do nothing
  returning id`;

// The same, with the outbox: a data-modifying CTE also writes the event of each of the ids in $4 that
// the INSERT stored, so the plant and its event commit (or not) together.
const INSERT_PLANTS_AND_EVENTS = `with inserted as (
    insert into plants (id, name, tag)
    select * from unnest($1::int8[], $2::text[], $3::text[])
    on conflict (id) do nothing
    returning id, name, tag
  ), recorded as (
    insert into plant_events (plant_id, name, tag)
    select id, name, tag from inserted where id = any($4::int8[])
  )
  select id from inserted`;

// A batch of one (every create without concurrency) as a one-row VALUES: the server runs it ~15 us
// sooner than the unnest() form, which is what a create waits for at c1.
const INSERT_PLANT = `insert into plants (id, name, tag)
  values ($1::int8, $2::text, $3::text)
  on conflict (id) do nothing
  returning id`;

const INSERT_PLANT_AND_EVENT = `with inserted as (
    insert into plants (id, name, tag)
    values ($1::int8, $2::text, $3::text)
    on conflict (id) do nothing
    returning id, name, tag
  ), recorded as (
    insert into plant_events (plant_id, name, tag)
    select id, name, tag from inserted
  )
  select id from inserted`;

// The reads and the delete, as fixed texts too: one statement each, nothing built per call.
const FIND_BY_ID = 'select id, name, tag from plants where id = $1::int8';
// The plants a batch's inserts conflicted with (a retry, a race, another content), read back once committed.
const FIND_BY_IDS = 'select id, name, tag from plants where id = any($1::int8[])';
// A page in id order, from the two indexes of migration 0003: the plants whose name and tag fit in an
// index entry come from the covering index alone (an index-only scan: a few pages a page), the others
// from the small index of the long ones; the two ordered runs are merged. The predicates are those of
// the indexes, word for word: the planner uses a partial index only for a query that implies them.
const SHORT = 'octet_length(name) + coalesce(octet_length(tag), 0) <= 2000';
const LONG = 'octet_length(name) + coalesce(octet_length(tag), 0) > 2000';
// A page reads the first `limit` + 1 plants (`upTo`): it keeps the first `limit` of them while their
// running sum of bytes stays within the budget (the first always), and answers the first plant it
// does not keep without its name and tag, to say that more follow. octet_length reads a long value's
// size from its TOAST pointer, so a plant past the budget is never read whole, nor sent. The limits
// on the merged run and on the whole are the page's own: they let the server plan it once, not per call.
const listPage = (after: string, upTo: string, maxBytes: string): string =>
  `select id, case when kept then name end as name, case when kept then tag end as tag, kept from (
    select id, name, tag,
      n < ${upTo} and (n = 1 or total <= ${maxBytes}) as kept,
      n <= 2 or total - bytes <= ${maxBytes} as shown
    from (
      select id, name, tag, bytes, row_number() over running as n, sum(bytes) over running as total
      from (
        select id, name, tag, octet_length(name) + coalesce(octet_length(tag), 0) as bytes from (
          (select id, name, tag from plants where ${after}${SHORT} order by id limit ${upTo})
          union all
          (select id, name, tag from plants where ${after}${LONG} order by id limit ${upTo})
          order by id limit ${upTo}
        ) as candidates
      ) as sized
      window running as (order by id rows between unbounded preceding and current row)
    ) as counted
  ) as page where shown order by id limit ${upTo}`;
const LIST_FIRST = listPage('', '$1::int8', '$2::int8');
const LIST_AFTER = listPage('id > $1::int8 and ', '$2::int8', '$3::int8');
const DELETE_BY_ID = 'delete from plants where id = $1::int8 returning id';

/**
 * The fixed texts above, each with a name a connection may prepare it under: the server then parses
 * and plans each once per connection instead of once per call (a create at c1 answers ~50 us sooner
 * here). For a driver that can (see openPostgresPlantStorage's `preparedStatements`).
 */
export const PLANT_STATEMENT_NAMES: ReadonlyMap<string, string> = new Map([
  [INSERT_PLANTS, 'plant_store_insert_plants'],
  [INSERT_PLANTS_AND_EVENTS, 'plant_store_insert_plants_and_events'],
  [INSERT_PLANT, 'plant_store_insert_plant'],
  [INSERT_PLANT_AND_EVENT, 'plant_store_insert_plant_and_event'],
  [FIND_BY_ID, 'plant_store_find_by_id'],
  [FIND_BY_IDS, 'plant_store_find_by_ids'],
  [LIST_FIRST, 'plant_store_list_first'],
  [LIST_AFTER, 'plant_store_list_after'],
  [DELETE_BY_ID, 'plant_store_delete_by_id'],
]);

/**
 * Runs one of the fixed texts above with its parameters and answers its rows. The default goes through
 * kysely; a driver may run them more directly (see openPostgresPlantStorage).
 */
export type RunFixedStatement = (text: string, parameters: readonly unknown[]) => Promise<readonly unknown[]>;

function throughKysely(db: Kysely<PlantDatabase>): RunFixedStatement {
  return async (text, parameters) => (await db.executeQuery(CompiledQuery.raw(text, [...parameters]))).rows;
}

function insertStatement(
  sent: readonly NewPlant[],
  recordFor: readonly bigint[],
): readonly [text: string, parameters: readonly unknown[]] {
  if (sent.length === 1) {
    const plant = sent[0] as NewPlant;
    const parameters = [plant.id.toString(), plant.name, plant.tag ?? null];
    // recordFor holds the plant's id exactly when its event is to be recorded.
    return [recordFor.length === 0 ? INSERT_PLANT : INSERT_PLANT_AND_EVENT, parameters];
  }
  const ids = sent.map((plant) => plant.id.toString());
  const names = sent.map((plant) => plant.name);
  const tags = sent.map((plant) => plant.tag ?? null);
  return recordFor.length === 0
    ? [INSERT_PLANTS, [ids, names, tags]]
    : [INSERT_PLANTS_AND_EVENTS, [ids, names, tags, recordFor.map((id) => id.toString())]];
}

async function insertBatch(
  run: RunFixedStatement,
  items: readonly InsertItem[],
  recordEvents: boolean,
  round = 1,
): Promise<InsertOutcome[]> {
  const plants = items.map((item) => item.plant);
  // By position, not by object: a caller may pass one object twice, and only one of them inserts.
  const firstOfId = new Map<bigint, number>();
  plants.forEach((plant, index) => {
    if (!firstOfId.has(plant.id)) firstOfId.set(plant.id, index);
  });
  const sent = [...firstOfId.values()].map((index) => plants[index] as NewPlant);

  // One statement decides: of racing inserts the primary key lets exactly one through, and
  // ON CONFLICT makes the others wait for it to commit, then do nothing. It resolves once committed.
  const recordFor = recordEvents
    ? [...firstOfId.values()]
        .filter((index) => items[index]?.created)
        .map((index) => plants[index]?.id as bigint)
    : [];
  const insertedRows = (await run(...insertStatement(sent, recordFor))) as readonly { id: PlantRow['id'] }[];
  const inserted = new Set(insertedRows.map((row) => BigInt(row.id)));

  // A separate statement takes a fresh snapshot, so it sees the committed winners.
  const conflicted = sent.filter((plant) => !inserted.has(plant.id)).map((plant) => plant.id);
  const existing = new Map<bigint, NewPlant>();
  if (conflicted.length > 0) {
    const rows = await run(FIND_BY_IDS, [conflicted.map((id) => id.toString())]);
    for (const row of rows as PlantRow[]) existing.set(BigInt(row.id), toNewPlant(row));
  }

  const outcomes = plants.map((plant, index): InsertOutcome | undefined => {
    const first = firstOfId.get(plant.id) as number;
    if (inserted.has(plant.id))
      return first === index ? { inserted: true } : { inserted: false, existing: plants[first] as NewPlant };
    const stored = existing.get(plant.id);
    return stored && { inserted: false, existing: stored };
  });

  // Deleted between the two statements: as if the delete had come first, these insert again.
  const vanished = plants.flatMap((_, index) => (outcomes[index] === undefined ? [index] : []));
  if (vanished.length > 0) {
    if (round >= MAX_INSERT_ROUNDS) {
      throw new Error(
        `plant ${plants[vanished[0] as number]?.id} was deleted under ${round} inserts in a row`,
      );
    }
    const again = await insertBatch(
      run,
      vanished.map((index) => items[index] as InsertItem),
      recordEvents,
      round + 1,
    );
    vanished.forEach((index, position) => {
      outcomes[index] = again[position];
    });
  }
  return outcomes as InsertOutcome[];
}

export interface PostgresPlantRepositoryOptions {
  /**
   * Concurrent inserts are committed together, one multi-row statement per batch (group commit),
   * each caller still getting its own outcome once its row is committed. Default: one batch at a
   * time. `false`: one statement per insert, as it comes.
   */
  readonly groupCommit?: Pick<GroupCommitOptions, 'maxBatchSize' | 'maxConcurrentBatches'> | false;
  /** Record the event of each plant created in the `plant_events` outbox, in the statement that stores it. */
  readonly events?: boolean;
  /** How the fixed statements run. Default: through `db` (kysely). */
  readonly runFixed?: RunFixedStatement;
}

function toRecordedEvent(row: {
  event_id: string;
  recorded_at: Date | string;
  plant_id: bigint | string | number;
  name: string;
  tag: string | null;
}): RecordedEvent {
  return {
    id: row.event_id,
    recordedAt: new Date(row.recorded_at),
    event: { type: 'plant.created', plant: toNewPlant({ id: row.plant_id, name: row.name, tag: row.tag }) },
  };
}

/**
 * The `plant_events` outbox. A relay locks the oldest rows (SKIP LOCKED: concurrent relays take
 * others), hands them on inside the same transaction, and deletes them there: forwarded and removed
 * together, or neither.
 */
export function createPostgresEventOutbox(
  db: Kysely<PlantDatabase>,
): PlantEventOutbox<Transaction<PlantDatabase>> {
  return {
    relay: (limit, forward) =>
      mapStorageErrors(() =>
        db.transaction().execute(async (trx) => {
          const rows = await trx
            .selectFrom('plant_events')
            .select(['seq', 'event_id', 'recorded_at', 'plant_id', 'name', 'tag'])
            .orderBy('seq')
            .limit(limit)
            .forUpdate()
            .skipLocked()
            .execute();
          if (rows.length === 0) return 0;
          await forward(rows.map(toRecordedEvent), trx);
          await trx
            .deleteFrom('plant_events')
            .where(
              'seq',
              'in',
              rows.map((row) => row.seq),
            )
            .execute();
          return rows.length;
        }),
      ),
    oldestRecordedAt: () =>
      mapStorageErrors(async () => {
        const row = await db
          .selectFrom('plant_events')
          .select('recorded_at')
          .orderBy('seq')
          .limit(1)
          .executeTakeFirst();
        return row && new Date(row.recorded_at);
      }),
  };
}

/** A PlantRepository over the `plants` table. The database, not this code, keeps ids unique. */
export function createPostgresPlantRepository(
  db: Kysely<PlantDatabase>,
  options: PostgresPlantRepositoryOptions = {},
): PlantRepository {
  const recordEvents = options.events === true;
  const run = options.runFixed ?? throughKysely(db);
  const insertOne =
    options.groupCommit === false
      ? async (item: InsertItem) => (await insertBatch(run, [item], recordEvents))[0] as InsertOutcome
      : groupCommit((items: readonly InsertItem[]) => insertBatch(run, items, recordEvents), {
          ...options.groupCommit,
          // A batch that failed for another reason than an outage is run again plant by plant, so
          // that whatever one plant does wrong, the others of its batch are not refused with it.
          retryAlone: (error) => !isUnavailableError(error),
        });
  return {
    insertIfAbsent: (plant, created) => mapStorageErrors(() => insertOne({ plant, created })),
    findById: (id) =>
      mapStorageErrors(async () => {
        const rows = await run(FIND_BY_ID, [id.toString()]);
        const row = rows[0] as PlantRow | undefined;
        return row && toNewPlant(row);
      }),
    // Keyset pagination on the primary key's index: `id > $after ORDER BY id LIMIT $n` reads only
    // the rows it returns, at any depth, where OFFSET would read and drop every row before them.
    listAfter: (after, limit, maxBytes) =>
      mapStorageErrors(async () => {
        const budget = maxBytes === undefined ? UNBOUNDED : String(maxBytes);
        const rows = (
          after === undefined
            ? await run(LIST_FIRST, [limit + 1, budget])
            : await run(LIST_AFTER, [after.toString(), limit + 1, budget])
        ) as PageRow[];
        const kept = rows.filter((row) => row.kept);
        return { plants: kept.map(toNewPlant), more: kept.length < rows.length };
      }),
    // One statement: of concurrent deletes of one id, the row lock lets one delete it, and the
    // others, once it has committed, find nothing.
    deleteById: (id) =>
      mapStorageErrors(async () => {
        const rows = await run(DELETE_BY_ID, [id.toString()]);
        return rows.length > 0;
      }),
  };
}
