import type { PlantEventOutbox } from '@plant-store/domain';
import {
  attemptJob,
  type DeliveryJob,
  firstAttempts,
  type WebhookConfig,
  type WebhookDispatcher,
  type WebhookObserver,
} from './deliveries.ts';
import { startRelayLoop } from './relay-loop.ts';

/** Attempts under way at once, at most: a flood of creates does not open a socket each. */
const MAX_IN_FLIGHT = 32;

/**
 * Delivers from an outbox with timers in this process: for `memory:` storage, where the events
 * themselves live in memory only (DESIGN.md). Same schedule, signing and outcomes as the durable queue.
 */
export function startMemoryDispatcher(
  outbox: PlantEventOutbox,
  config: WebhookConfig,
  observer: WebhookObserver,
  onError: (error: unknown) => void,
): WebhookDispatcher {
  const waiting = new Map<symbol, { job: DeliveryJob; timer: NodeJS.Timeout | undefined }>();
  const ready: symbol[] = [];
  const inFlight = new Set<Promise<void>>();
  let dead: DeliveryJob[] = [];
  let stopped = false;
  const stopping = new AbortController();

  const pump = (): void => {
    while (!stopped && inFlight.size < MAX_IN_FLIGHT && ready.length > 0) {
      const key = ready.shift() as symbol;
      const entry = waiting.get(key);
      if (!entry) continue;
      const attempt = attemptJob(config, entry.job, observer, stopping.signal)
        .then((step) => {
          // Abandoned at stop: still waiting, as the events are, until the process ends.
          if (step.kind === 'abandoned') return;
          waiting.delete(key);
          if (step.kind === 'retry') schedule(step.job, step.delayMs);
          if (step.kind === 'dead') dead.push(step.job);
        })
        .catch(onError)
        .finally(() => {
          inFlight.delete(attempt);
          pump();
        });
      inFlight.add(attempt);
    }
  };

  const schedule = (job: DeliveryJob, delayMs: number): void => {
    const key = Symbol(job.eventId);
    const entry: { job: DeliveryJob; timer: NodeJS.Timeout | undefined } = { job, timer: undefined };
    waiting.set(key, entry);
    // Stopped: it waits with the rest, and no timer keeps the process alive for it.
    if (stopped) return;
    if (delayMs <= 0) {
      ready.push(key);
      pump();
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      ready.push(key);
      pump();
    }, delayMs);
  };

  const relay = startRelayLoop(
    outbox,
    async (events) => {
      for (const job of firstAttempts(events, config.urls)) schedule(job, 0);
    },
    onError,
  );

  return {
    kick: relay.kick,
    async backlog() {
      const dates = [...waiting.values()].map((entry) => Date.parse(entry.job.recordedAt));
      const outboxOldest = await outbox.oldestRecordedAt();
      if (outboxOldest) dates.push(outboxOldest.getTime());
      return {
        dead: dead.length,
        oldestUndeliveredAt: dates.length === 0 ? undefined : new Date(Math.min(...dates)),
      };
    },
    async redeliverDead() {
      const again = dead;
      dead = [];
      for (const job of again) schedule(job, 0);
      return again.length;
    },
    async stop(graceMs = 0) {
      stopped = true;
      const deadline = setTimeout(() => stopping.abort(), graceMs);
      await relay.stop();
      for (const entry of waiting.values()) clearTimeout(entry.timer);
      // Attempts end by themselves or, abandoned at the deadline, at once.
      await Promise.all(inFlight);
      clearTimeout(deadline);
    },
  };
}
