import type { PGlite } from '@electric-sql/pglite';
import { trace } from '@opentelemetry/api';
import type { PlantEventOutbox, RecordedEvent } from '@plant-store/domain';
import {
  type ConstructorOptions,
  fromKysely,
  fromPglite,
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
import { type DeliveryJob, firstAttempts } from './delivery-job.ts';
import { inRelaySpan, startRelayLoop } from './relay-loop.ts';
import { linksTo } from './tracing.ts';

/** The queue of attempts to make: one job per event, URL and attempt. */
export const DELIVERY_QUEUE = 'plant-webhook-deliveries';
/** Deliveries whose last attempt failed, kept until an operator redelivers them. */
export const DEAD_QUEUE = 'plant-webhook-dead';

/** Jobs fetched at once; their attempts run concurrently. */
const BATCH_SIZE = 50;
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
 * into the delivery queue in the transaction that empties it, each attempt is a job, a failed
 * attempt queues the next one at its time, and the last failure queues the delivery as dead.
 * Any number of processes can run it on one database: a job is fetched by one of them (SKIP LOCKED).
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
  await boss.createQueue(DELIVERY_QUEUE, {
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
  // A queue created by an earlier version has no dead letter yet: the jobs queued from now on get it.
  await boss.updateQueue(DELIVERY_QUEUE, { deadLetter: DEAD_QUEUE });
  const db = boss.getDb();

  const settle = async (steps: readonly NextStep[]): Promise<void> => {
    const retries = steps.flatMap((step) =>
      step.kind === 'retry' ? [insertOf(step.job, step.delayMs)] : [],
    );
    const dead = steps.flatMap((step) => (step.kind === 'dead' ? [insertOf(step.job)] : []));
    if (retries.length > 0) await boss.insert(DELIVERY_QUEUE, retries);
    if (dead.length > 0) await boss.insert(DEAD_QUEUE, dead);
  };

  // Aborted when stop's grace is spent: attempts still under way are abandoned.
  const stopping = new AbortController();
  const workerId = await boss.work<DeliveryJob>(
    DELIVERY_QUEUE,
    {
      batchSize: BATCH_SIZE,
      // Two batches in flight: one slow receiver's attempts do not hold up every other delivery.
      localConcurrency: 2,
      pollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
      // An abandoned attempt fails its job alone, which pg-boss retries; the rest of the batch completes.
      perJobResults: true,
    },
    async (jobs): Promise<JobResult[]> => {
      // pg-boss runs this in its CONSUMER span (`process plant-webhook-deliveries`), linked to the
      // jobs' sends: linked to their creates too, the batch is found from the events it delivered.
      trace.getActiveSpan()?.addLinks(linksTo(jobs.map((job) => job.data)));
      const steps = await Promise.all(
        jobs.map((job) =>
          attemptJob(config, job.data, observer, AbortSignal.any([job.signal, stopping.signal])),
        ),
      );
      // The follow-ups are written before the batch completes: a process killed between the two
      // leaves its jobs to expire and run again, a duplicate (same webhook-id), never a loss.
      await settle(steps);
      return jobs.map((job, index) =>
        steps[index]?.kind === 'abandoned'
          ? {
              id: job.id,
              status: 'failed',
              output: { abandoned: 'the service stopped during the attempt' },
            }
          : { id: job.id, status: 'completed' },
      );
    },
  );

  const outbox = options.outbox;
  const relay = outbox
    ? startRelayLoop(
        (limit) =>
          outbox.relay(limit, (events, tx) =>
            inRelaySpan(events, async () => {
              const jobs = firstAttempts(events, config.urls).map((job) => insertOf(job));
              await boss.insert(DELIVERY_QUEUE, jobs, { db: fromKysely(tx) });
            }),
          ),
        onError,
        // Committed: the worker fetches them now rather than at its next poll.
        () => boss.notifyWorker(workerId),
      )
    : undefined;

  // getQueue's counts are a periodic snapshot, and findJobs goes by a job's creation (a retry is a new
  // job), not its event's recordedAt, and leaves active ones out: so these two read the job table.
  const jobTable = `${quoteIdentifier(schema)}.job`;
  return {
    kick: () => relay?.kick(),
    async backlog() {
      const [{ rows: deadRows }, { rows: waitingRows }, outboxOldest] = await Promise.all([
        db.executeSql(`select count(*)::int as n from ${jobTable} where name = $1 and state = 'created'`, [
          DEAD_QUEUE,
        ]),
        db.executeSql(
          `select min((data->>'recordedAt')::timestamptz) as oldest from ${jobTable} where name = $1 and state in ('created', 'retry', 'active')`,
          [DELIVERY_QUEUE],
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
