import { context, propagation } from '@opentelemetry/api';
import {
  type ExpectedContent,
  type InsertOutcome,
  type NewPlant,
  newPlant,
  type PlantChange,
  type PlantCreated,
  type PlantEventOutbox,
  type PlantRepository,
  type RecordedEvent,
  type UpdateOutcome,
} from '@plant-store/domain';
import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import { type GroupCommitOptions, groupCommit } from './group-commit.ts';
import type { PlantDatabase } from './plant-database.ts';
import {
  DELETE_BY_ID,
  DELETE_BY_ID_IF,
  FIND_BY_ID,
  FIND_BY_IDS,
  INSERT_PLANT,
  INSERT_PLANT_AND_EVENT,
  INSERT_PLANTS,
  INSERT_PLANTS_AND_EVENTS,
  PAGE_READ_CAP,
  PAGES,
  UNCAPPED_PAGES,
  UPDATE_PLANT,
  UPDATE_PLANT_IF,
} from './plant-statements.ts';
import { isUnavailableError, mapStorageErrors } from './storage-errors.ts';

type PlantRow = { id: bigint; name: string; tag: string | null };

// A budget no page reaches: the largest int8, as the statements' parameter.
const UNBOUNDED = '9223372036854775807';

// BigInt() keeps the id exact even on a Kysely built without our int8 parser, where pg hands
// int8 over as a string and PGlite as a number when it is safe.
function toNewPlant(row: PlantRow): NewPlant {
  return newPlant(BigInt(row.id), row.name, row.tag ?? undefined);
}

// A delete can remove the row an insert conflicted with before the insert reads it back, and a write
// can restore the content a conditional update did not find before it reads the plant back: each is
// then tried again. Each further round needs yet another such write of that id to land between two
// statements of ours: the bound is never reached by chance.
const MAX_ROUNDS = 100;

/** One call of insertIfAbsent: the plant, and its event when the caller has one to record. */
interface InsertItem {
  readonly plant: NewPlant;
  readonly created?: PlantCreated | undefined;
  /** The caller's trace context as JSON, taken at the call (a batch runs in another context). */
  readonly traceContext?: string | null;
}

/** The W3C carrier of the active context as JSON; null when it is empty (tracing off). */
function activeTraceContext(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  for (const _ in carrier) return JSON.stringify(carrier);
  return null;
}

/** The events to record with an insert: the ids, and the trace context of each at the same place. */
interface Recording {
  readonly ids: readonly bigint[];
  readonly traceContexts: (string | null)[];
}

/** Runs a compiled statement and answers its rows: kysely's executeQuery on the adapter's database. */
type Run = <Row>(query: CompiledQuery<Row>) => Promise<readonly Row[]>;

function insertStatement(sent: readonly NewPlant[], recording: Recording): CompiledQuery<{ id: bigint }> {
  if (sent.length === 1) {
    const plant = sent[0] as NewPlant;
    const values = { id: plant.id.toString(), name: plant.name, tag: plant.tag ?? null };
    // recording holds the plant's id exactly when its event is to be recorded.
    return recording.ids.length === 0
      ? INSERT_PLANT.bind(values)
      : INSERT_PLANT_AND_EVENT.bind({ ...values, traceContext: recording.traceContexts[0] ?? null });
  }
  const ids = sent.map((plant) => plant.id.toString());
  const names = sent.map((plant) => plant.name);
  const tags = sent.map((plant) => plant.tag ?? null);
  return recording.ids.length === 0
    ? INSERT_PLANTS.bind({ ids, names, tags })
    : INSERT_PLANTS_AND_EVENTS.bind({
        ids,
        names,
        tags,
        recordFor: recording.ids.map((id) => id.toString()),
        traceContexts: recording.traceContexts,
      });
}

/**
 * Inserts a batch of plants with one statement, and answers each plant in order as if they had
 * been inserted one after the other: the database decides between batches (the primary key and
 * ON CONFLICT, as for a single insert), and within the batch the first plant of an id is the one
 * sent, the others of that id are settled against it.
 */
async function insertBatch(
  run: Run,
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
  const recordedAt = recordEvents ? [...firstOfId.values()].filter((index) => items[index]?.created) : [];
  const recording: Recording = {
    ids: recordedAt.map((index) => plants[index]?.id as bigint),
    traceContexts: recordedAt.map((index) => items[index]?.traceContext ?? null),
  };
  const insertedRows = await run(insertStatement(sent, recording));
  const inserted = new Set(insertedRows.map((row) => BigInt(row.id)));

  // A separate statement takes a fresh snapshot, so it sees the committed winners.
  const conflicted = sent.filter((plant) => !inserted.has(plant.id)).map((plant) => plant.id);
  const existing = new Map<bigint, NewPlant>();
  if (conflicted.length > 0) {
    const rows = await run(FIND_BY_IDS.bind({ ids: conflicted.map((id) => id.toString()) }));
    for (const row of rows) existing.set(BigInt(row.id), toNewPlant(row));
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
    if (round >= MAX_ROUNDS) {
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

/** An expected content as the conditional statements take it: an absent tag is NULL. */
function expectedValues(expected: Exclude<ExpectedContent, 'any'>) {
  return { expectedName: expected.name, expectedTag: expected.tag ?? null };
}

/**
 * One statement changes the plant, comparing its content first when there is an expected one. When
 * that finds no row, a second statement (a fresh snapshot, once the write that changed the plant has
 * committed) tells a plant with other content from none; if it finds the expected content after all
 * (changed back, or created, between the two), the change is tried again.
 */
async function update(
  run: Run,
  id: bigint,
  change: PlantChange,
  expected: ExpectedContent | undefined,
  round = 1,
): Promise<UpdateOutcome> {
  const values = {
    id: id.toString(),
    name: change.name ?? null,
    setTag: change.tag !== undefined,
    tag: change.tag ?? null,
  };
  const conditional = expected !== undefined && expected !== 'any';
  const [row] = await run(
    conditional
      ? UPDATE_PLANT_IF.bind({ ...values, ...expectedValues(expected) })
      : UPDATE_PLANT.bind(values),
  );
  if (row) return { outcome: 'updated', plant: toNewPlant(row) };
  if (!conditional) return { outcome: 'absent' };
  const [found] = await run(FIND_BY_ID.bind({ id: id.toString() }));
  if (!found) return { outcome: 'absent' };
  const current = toNewPlant(found);
  if (current.name !== expected.name || current.tag !== expected.tag) {
    return { outcome: 'precondition-failed', current };
  }
  if (round >= MAX_ROUNDS) {
    throw new Error(`plant ${id} was changed back to the expected content under ${round} updates in a row`);
  }
  return update(run, id, change, expected, round + 1);
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
}

function toRecordedEvent(row: {
  event_id: string;
  recorded_at: Date;
  plant_id: bigint;
  name: string;
  tag: string | null;
  trace_context: Record<string, string> | null;
}): RecordedEvent {
  const recorded: RecordedEvent = {
    id: row.event_id,
    recordedAt: new Date(row.recorded_at),
    event: { type: 'plant.created', plant: toNewPlant({ id: row.plant_id, name: row.name, tag: row.tag }) },
  };
  return row.trace_context === null ? recorded : { ...recorded, traceContext: row.trace_context };
}

/** The outbox of a PostgreSQL store: its relay also hands `forward` the transaction, to write in it. */
export interface PostgresEventOutbox extends PlantEventOutbox {
  relay(
    limit: number,
    forward: (events: readonly RecordedEvent[], trx: Transaction<PlantDatabase>) => Promise<void>,
  ): Promise<number>;
}

/**
 * The `plant_events` outbox. A relay locks the oldest rows (SKIP LOCKED: concurrent relays take
 * others), hands them on inside the same transaction, and deletes them there: forwarded and removed
 * together, or neither.
 */
export function createPostgresEventOutbox(db: Kysely<PlantDatabase>): PostgresEventOutbox {
  return {
    relay: (limit, forward) =>
      mapStorageErrors(() =>
        db.transaction().execute(async (trx) => {
          const rows = await trx
            .selectFrom('plant_events')
            .select(['seq', 'event_id', 'recorded_at', 'plant_id', 'name', 'tag', 'trace_context'])
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
  const run: Run = async (query) => (await db.executeQuery(query)).rows;
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
    insertIfAbsent: (plant, created) =>
      mapStorageErrors(() =>
        insertOne(
          recordEvents && created
            ? { plant, created, traceContext: activeTraceContext() }
            : { plant, created },
        ),
      ),
    findById: (id) =>
      mapStorageErrors(async () => {
        const [row] = await run(FIND_BY_ID.bind({ id: id.toString() }));
        return row && toNewPlant(row);
      }),
    // One page: the plants it keeps, then (kept false, without name and tag) the first that follows them.
    listAfter: (after, limit, maxBytes, tag) =>
      mapStorageErrors(async () => {
        const page = { upTo: limit + 1, maxBytes: maxBytes === undefined ? UNBOUNDED : String(maxBytes) };
        const pages = page.upTo <= PAGE_READ_CAP ? PAGES : UNCAPPED_PAGES;
        const rows = await run(
          tag === undefined
            ? after === undefined
              ? pages.first.bind(page)
              : pages.after.bind({ ...page, after: after.toString() })
            : after === undefined
              ? pages.tagFirst.bind({ ...page, tag })
              : pages.tagAfter.bind({ ...page, tag, after: after.toString() }),
        );
        const plants = rows.flatMap((row) =>
          row.kept && row.name !== null ? [toNewPlant({ id: row.id, name: row.name, tag: row.tag })] : [],
        );
        return { plants, more: plants.length < rows.length };
      }),
    update: (id, change, expected) => mapStorageErrors(() => update(run, id, change, expected)),
    deleteById: (id, expected) =>
      mapStorageErrors(async () => {
        const rows = await run(
          expected === undefined || expected === 'any'
            ? DELETE_BY_ID.bind({ id: id.toString() })
            : DELETE_BY_ID_IF.bind({ id: id.toString(), ...expectedValues(expected) }),
        );
        return rows.length > 0;
      }),
  };
}
