import { type AttemptOutcome, attemptDelivery } from './attempt.ts';
import { inAttemptSpan } from './attempt-span.ts';
import type { DeliveryJob } from './delivery-job.ts';
import { nextRetryDelay } from './schedule.ts';

/** What the service was told: where to deliver, how to sign, when to try again, how long to wait. */
export interface WebhookConfig {
  readonly urls: readonly string[];
  readonly keys: readonly Buffer[];
  /** The waits before each further attempt (ms); its length is the number of retries. */
  readonly schedule: readonly number[];
  readonly timeoutMs: number;
  /**
   * In-memory delivery only (startMemoryDispatcher): the most events whose deliveries it holds; it
   * takes no more from the outbox until some finish. Default 10,000.
   */
  readonly maxEventsInMemory?: number | undefined;
}

/** Told of every outcome: the service counts them in /metrics and logs them. */
export interface WebhookObserver {
  delivered(job: DeliveryJob, status: number): void;
  attemptFailed(job: DeliveryJob, reason: string): void;
  /** 410: this URL wants no more of this event. */
  gone(job: DeliveryJob): void;
  /** The last attempt failed: the event is kept as dead for this URL, for an operator to redeliver. */
  dead(job: DeliveryJob): void;
  /** The service stopped while the attempt was under way: it stays queued, to be made again. */
  abandoned(job: DeliveryJob): void;
}

/** What is left to do after an attempt. */
export type NextStep =
  | { readonly kind: 'done' }
  | { readonly kind: 'retry'; readonly job: DeliveryJob; readonly delayMs: number }
  | { readonly kind: 'dead'; readonly job: DeliveryJob }
  /** Stopped before the receiver answered: the same attempt is to be made again. */
  | { readonly kind: 'abandoned'; readonly job: DeliveryJob };

/** Decides what follows an attempt's outcome, and tells the observer. */
export function nextStep(
  config: WebhookConfig,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  observer: WebhookObserver,
): NextStep {
  switch (outcome.kind) {
    case 'delivered':
      observer.delivered(job, outcome.status);
      return { kind: 'done' };
    case 'gone':
      observer.attemptFailed(job, 'answered 410');
      observer.gone(job);
      return { kind: 'done' };
    case 'failed': {
      observer.attemptFailed(job, outcome.reason);
      const delayMs = nextRetryDelay(config.schedule, job.attempt, outcome.retryAfterMs);
      if (delayMs === undefined) {
        observer.dead(job);
        // Kept ready for a fresh schedule: an operator's redelivery starts again from the first attempt.
        return { kind: 'dead', job: { ...job, attempt: 0 } };
      }
      return { kind: 'retry', job: { ...job, attempt: job.attempt + 1 }, delayMs };
    }
    case 'abandoned':
      observer.abandoned(job);
      return { kind: 'abandoned', job };
  }
}

/** Makes one attempt and decides what follows; `signal` abandons it (the dispatcher is stopping). */
export async function attemptJob(
  config: WebhookConfig,
  job: DeliveryJob,
  observer: WebhookObserver,
  signal?: AbortSignal,
): Promise<NextStep> {
  const outcome = await inAttemptSpan(job, () =>
    attemptDelivery(
      { url: job.url, eventId: job.eventId, body: job.body },
      { keys: config.keys, timeoutMs: config.timeoutMs, signal },
    ),
  );
  return nextStep(config, job, outcome, observer);
}

/** What /metrics shows of the queue. */
export interface WebhookBacklog {
  /** Deliveries kept as dead (one per event and URL). */
  readonly dead: number;
  /** When the oldest event not yet delivered everywhere was recorded; undefined when none is waiting. */
  readonly oldestUndeliveredAt: Date | undefined;
}

/** Delivers the events of the store's outbox. */
export interface WebhookDispatcher {
  /** A plant was created: hand the outbox on soon (it is also looked at every second). */
  kick(): void;
  backlog(): Promise<WebhookBacklog>;
  /**
   * Stops taking work and gives attempts under way `graceMs` (default 0) to finish; those still
   * running then are abandoned, their requests destroyed, and stay queued for a later try.
   */
  stop(graceMs?: number): Promise<void>;
}
