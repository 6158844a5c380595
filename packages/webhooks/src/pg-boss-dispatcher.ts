import type { PGlite } from '@electric-sql/pglite';
import { trace } from '@opentelemetry/api';
import type { PlantEventOutbox, RecordedEvent } from '@plant-store/domain';
import {
  type ConstructorOptions,
  fromKysely,
  fromPglite,
  type Job,
  type JobInsert,
  type JobResult,
  type KyselyTransactionLike,
  PgBoss,
} from 'pg-boss';
import {
  attemptJob,
  type NextStep,
  type WebhookConfig,
  type WebhookDispatcher,
  type WebhookObserver,
} from './deliveries.ts';
import {
  batched,
  type DeliveryJob,
  deliveriesOf,
  firstAttempts,
  isBatch,
  type QueuedDeliveries,
} from './delivery-job.ts';
import { inRelaySpan, startRelayLoop } from './relay-loop.ts';
import { linksTo } from './tracing.ts';

/**
 * First attempts, many a job (DeliveryBatch): what a relay hands on. The queue's row work (the job
 * written, fetched, completed) is per job: one a delivery cost PostgreSQL more than the delivery.
 */
export const BATCH_QUEUE = 'plant-webhook-batches';
/**
 * Attempts of one delivery a job: retries, redeliveries, what is left of a batch cut short (and the
 * first attempts an earlier version queued, one a job).
 */
export const DELIVERY_QUEUE = 'plant-webhook-deliveries';
/** Deliveries whose last attempt failed, kept until an operator redelivers them. */
export const DEAD_QUEUE = 'plant-webhook-dead';

/** Deliveries a batch holds at most, and the bytes of their bodies (a larger body goes alone). */
const DELIVERIES_PER_BATCH = 50;
const BATCH_BODY_BYTES = 256 * 1024;
/**
 * How each queue's worker fetches: jobs at once (their attempts run concurrently), and batches under
 * way at once. Either way at most 100 attempts at once from a queue: more would mostly wait for one
 * of a receiver's sockets (attempt.ts, MAX_SOCKETS_PER_RECEIVER), their timeout running.
 */
const WORKERS = {
  [BATCH_QUEUE]: { batchSize: 2, localConcurrency: 1 },
  // Two batches under way: one slow receiver's retries do not hold up every other receiver's.
  [DELIVERY_QUEUE]: { batchSize: 50, localConcurrency: 2 },
} as const;
/** How long an attempt cut short at stop waits to be made again, as pg-boss's first retry would. */
const CUT_SHORT_DELAY_MS = 5_000;
const TEN_YEARS_S = 10 * 365 * 24 * 3600;
/** How long past stop's grace pg-boss waits for a handler before it fails the handler's jobs itself. */
const BACKSTOP_MS = 500;

/** Where pg-boss keeps its tables: beside the store's own schema, never in it. */
export function jobQueueSchema(storeSchema: string): string {
  return storeSchema === 'public' ? 'pgboss' : `${storeSchema}_pgboss`;
}

/** The database the store is on: the queue lives in the same one. */
export type QueueDatabase =
  | { readonly kind: 'postgres'; readonly connectionString: string }
  /** PGlite has one connection: pg-boss shares the store's instance. */
  | { readonly kind: 'pglite'; readonly pglite: PGlite };

/**
 * An outbox whose relay hands `forward` its kysely transaction (the PostgreSQL and PGlite stores'):
 * pg-boss queues the first attempts in it, so an event leaves the outbox exactly when its
 * deliveries are queued.
 */
export interface TransactionalEventOutbox extends PlantEventOutbox {
  relay(
    limit: number,
    forward: (events: readonly RecordedEvent[], tx: KyselyTransactionLike) => Promise<void>,
  ): Promise<number>;
}

export interface PgBossDispatcherOptions {
  readonly database: QueueDatabase;
  /** The schema of the store; the queue's is derived from it (jobQueueSchema). */
  readonly storeSchema: string;
  /** The store's outbox; the first attempts are queued in the transaction its relay hands on. */
  readonly outbox: TransactionalEventOutbox | undefined;
  readonly config: WebhookConfig;
  readonly observer: WebhookObserver;
  readonly onError: (error: unknown) => void;
}

function insertOf(job: DeliveryJob, delayMs = 0): JobInsert {
  return delayMs > 0
    ? { data: { ...job }, startAfter: new Date(Date.now() + delayMs) }
    : { data: { ...job } };
}

/** pg-boss on the store's database: its own small pool on a server, the store's instance on PGlite. */
function bossOn(
  database: QueueDatabase,
  storeSchema: string,
  poolSize: number,
  options: Omit<ConstructorOptions, 'schema' | 'max'>,
): PgBoss {
  return new PgBoss({
    ...(database.kind === 'postgres'
      ? { connectionString: database.connectionString, max: poolSize }
      : { db: fromPglite(database.pglite), backend: 'pglite' as const }),
    schema: jobQueueSchema(storeSchema),
    // pg-boss's own spans (send, process, settle) continue from the span that queued each job: a
    // retry's from the batch whose attempt failed, a first attempt's from its relay.
    openTelemetry: { propagateContext: true },
    ...options,
  });
}

/** Moves every dead delivery back into the delivery queue (its data starts the schedule afresh). */
async function redriveDead(boss: PgBoss): Promise<number> {
  let moved = 0;
  for (let batch = -1; batch !== 0; moved += batch) {
    batch = await boss.redrive(DEAD_QUEUE, { destination: DELIVERY_QUEUE, limit: 1000 });
  }
  return moved;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Delivers through pg-boss on the store's own database (PostgreSQL or PGlite): the outbox is moved
 * into the queue in the transaction that empties it, its first attempts in batches (BATCH_QUEUE);
 * a failed attempt queues the next one at its time, one delivery a job (DELIVERY_QUEUE), and the
 * last failure queues the delivery as dead. Any number of processes can run it on one database: a
 * job is fetched by one of them (SKIP LOCKED).
 */
export async function startPgBossDispatcher(options: PgBossDispatcherOptions): Promise<WebhookDispatcher> {
  const { config, observer, onError } = options;
  const schema = jobQueueSchema(options.storeSchema);
  // A job that stays active longer than an attempt can take was held by a process that died:
  // pg-boss makes it ready again (a retry of its own, apart from our schedule) once it expires.
  const expireInSeconds = Math.ceil(config.timeoutMs / 1000) + 5;
  // pg-boss looks for expired jobs in a supervise pass only once monitorIntervalSeconds (default 60)
  // have passed since the last look: the same interval for both, or a dead process's jobs wait a minute.
  const superviseIntervalSeconds = Math.min(60, Math.max(2, expireInSeconds));
  const boss = bossOn(options.database, options.storeSchema, 4, {
    superviseIntervalSeconds,
    monitorIntervalSeconds: superviseIntervalSeconds,
  });
  boss.on('error', onError);
  await boss.start();
  await boss.createQueue(DEAD_QUEUE, { retentionSeconds: TEN_YEARS_S, deleteAfterSeconds: 7 * 24 * 3600 });
  for (const queue of [BATCH_QUEUE, DELIVERY_QUEUE]) {
    await boss.createQueue(queue, {
      expireInSeconds,
      // Only for jobs whose process died or stopped mid-attempt, or whose follow-up could not be
      // written: our own schedule handles a receiver's failures.
      retryLimit: 10,
      retryDelay: 5,
      retryBackoff: true,
      // Once those are spent, the delivery is dead (counted, redeliverable), never dropped.
      deadLetter: DEAD_QUEUE,
      // A retry may wait 10 hours; a job is kept far longer than that.
      retentionSeconds: 14 * 24 * 3600,
      deleteAfterSeconds: 24 * 3600,
    });
  }
  // A queue created by an earlier version has no dead letter yet: the jobs queued from now on get it.
  await boss.updateQueue(DELIVERY_QUEUE, { deadLetter: DEAD_QUEUE });
  const db = boss.getDb();

  /** Writes what follows the attempts: retries and attempts cut short to make again, the dead kept. */
  const settle = async (steps: readonly NextStep[], cutShort: readonly DeliveryJob[]): Promise<void> => {
    const again = [
      ...steps.flatMap((step) => (step.kind === 'retry' ? [insertOf(step.job, step.delayMs)] : [])),
      ...cutShort.map((job) => insertOf(job, CUT_SHORT_DELAY_MS)),
    ];
    const dead = steps.flatMap((step) => (step.kind === 'dead' ? [insertOf(step.job)] : []));
    if (again.length > 0) await boss.insert(DELIVERY_QUEUE, again);
    if (dead.length > 0) await boss.insert(DEAD_QUEUE, dead);
  };

  // Aborted when stop's grace is spent: attempts still under way are abandoned.
  const stopping = new AbortController();
  const handle = async (jobs: Job<QueuedDeliveries>[]): Promise<JobResult[]> => {
    // A batch pg-boss runs again (its process died or stopped during it) goes on one delivery a job:
    // from there each has the delivery queue's own retries, and is kept as dead on its own. So does one
    // redelivered into the delivery queue, whose fetches of 50 jobs are sized for one delivery a job.
    const split = jobs.filter(
      (job) => isBatch(job.data) && (job.retryCount > 0 || job.name === DELIVERY_QUEUE),
    );
    if (split.length > 0) {
      await boss.insert(
        DELIVERY_QUEUE,
        split.flatMap((job) => deliveriesOf(job.data).map((delivery) => insertOf(delivery))),
      );
    }
    const attempted = split.length > 0 ? jobs.filter((job) => !split.includes(job)) : jobs;
    const deliveries = attempted.map((job) => deliveriesOf(job.data));
    // pg-boss runs this in its CONSUMER span (`process <queue>`), linked to the jobs' sends: linked to
    // their creates too, the batch is found from the events it delivered.
    trace.getActiveSpan()?.addLinks(linksTo(deliveries.flat()));
    const steps = await Promise.all(
      attempted.map((job, index) => {
        const signal = AbortSignal.any([job.signal, stopping.signal]);
        return Promise.all(
          (deliveries[index] as readonly DeliveryJob[]).map((delivery) =>
            attemptJob(config, delivery, observer, signal),
          ),
        );
      }),
    );
    // A job whose every attempt was abandoned fails: pg-boss makes it again later, and keeps it as
    // dead once its own retries are spent. The attempts cut short in a job whose others ended are
    // queued again on their own, so that none that ended is made twice.
    const wholly = steps.map((own) => own.length > 0 && own.every((step) => step.kind === 'abandoned'));
    const cutShort = steps.flatMap((own, index) =>
      wholly[index] ? [] : own.flatMap((step) => (step.kind === 'abandoned' ? [step.job] : [])),
    );
    // The follow-ups are written before the jobs complete: a process killed between the two
    // leaves its jobs to expire and run again, a duplicate (same webhook-id), never a loss.
    await settle(steps.flat(), cutShort);
    return [
      ...split.map((job): JobResult => ({ id: job.id, status: 'completed' })),
      ...attempted.map(
        (job, index): JobResult =>
          wholly[index]
            ? {
                id: job.id,
                status: 'failed',
                output: { abandoned: 'the service stopped during the attempt' },
              }
            : { id: job.id, status: 'completed' },
      ),
    ];
  };
  const work = (queue: keyof typeof WORKERS) =>
    boss.work<QueuedDeliveries>(
      queue,
      {
        ...WORKERS[queue],
        pollingIntervalSeconds: 0.5,
        burstWhenBatchFull: true,
        // An abandoned job fails alone, which pg-boss retries; the rest of the batch completes.
        perJobResults: true,
      },
      handle,
    );
  const batchWorker = await work(BATCH_QUEUE);
  await work(DELIVERY_QUEUE);

  const outbox = options.outbox;
  const relay = outbox
    ? startRelayLoop(
        (limit) =>
          outbox.relay(limit, (events, tx) =>
            inRelaySpan(events, async () => {
              const jobs = batched(
                firstAttempts(events, config.urls),
                DELIVERIES_PER_BATCH,
                BATCH_BODY_BYTES,
              ).map((batch) => ({ data: batch }));
              await boss.insert(BATCH_QUEUE, jobs, { db: fromKysely(tx) });
            }),
          ),
        onError,
        // Committed: the worker fetches them now rather than at its next poll.
        () => boss.notifyWorker(batchWorker),
      )
    : undefined;

  // getQueue's counts are a periodic snapshot, and findJobs goes by a job's creation (a retry is a new
  // job), not its event's recordedAt, and leaves active ones out: so these two read the job table.
  const jobTable = `${quoteIdentifier(schema)}.job`;
  return {
    kick: () => relay?.kick(),
    async backlog() {
      const [{ rows: deadRows }, { rows: waitingRows }, outboxOldest] = await Promise.all([
        // A batch is dead only once pg-boss's own retries of it are spent: counted by its deliveries.
        db.executeSql(
          `select coalesce(sum(case when jsonb_typeof(data->'deliveries') = 'array' then jsonb_array_length(data->'deliveries') else 1 end), 0)::int as n from ${jobTable} where name = $1 and state = 'created'`,
          [DEAD_QUEUE],
        ),
        db.executeSql(
          `select min((data->>'recordedAt')::timestamptz) as oldest from ${jobTable} where name in ($1, $2) and state in ('created', 'retry', 'active')`,
          [BATCH_QUEUE, DELIVERY_QUEUE],
        ),
        outbox?.oldestRecordedAt(),
      ]);
      const oldest = [waitingRows[0]?.oldest, outboxOldest]
        .filter((value) => value !== undefined && value !== null)
        .map((value) => new Date(value as string | Date).getTime());
      return {
        dead: Number(deadRows[0]?.n ?? 0),
        oldestUndeliveredAt: oldest.length === 0 ? undefined : new Date(Math.min(...oldest)),
      };
    },
    async stop(graceMs = 0) {
      const stopBy = performance.now() + graceMs;
      const deadline = setTimeout(() => stopping.abort(), graceMs);
      try {
        await relay?.stop();
        // pg-boss stops fetching at once and waits for the handlers, which return as soon as their
        // attempts are abandoned at the deadline; its own deadline, later, is only a backstop.
        const left = Math.max(0, stopBy - performance.now());
        await boss.stop({ graceful: true, close: true, timeout: left + BACKSTOP_MS });
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}

/**
 * Moves every dead delivery back into the delivery queue, with a fresh schedule, for whichever
 * service runs on this database to deliver: the operator's redelivery. Resolves with how many.
 */
export async function redeliverDeadWebhooks(database: QueueDatabase, storeSchema: string): Promise<number> {
  const boss = bossOn(database, storeSchema, 1, { supervise: false, schedule: false });
  const failures: unknown[] = [];
  boss.on('error', (error) => failures.push(error));
  await boss.start();
  try {
    const queues = await boss.getQueues([DEAD_QUEUE, DELIVERY_QUEUE]);
    // No queue yet: webhooks never ran on this database, so nothing is dead.
    if (queues.length < 2) return 0;
    return await redriveDead(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}
