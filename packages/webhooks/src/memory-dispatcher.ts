import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { PlantEventOutbox } from '@plant-store/domain';
import {
  attemptJob,
  type WebhookConfig,
  type WebhookDispatcher,
  type WebhookObserver,
} from './deliveries.ts';
import { type DeliveryJob, firstAttempts } from './delivery-job.ts';
import { inRelaySpan, startRelayLoop } from './relay-loop.ts';

/** Attempts under way at once, at most: a flood of creates does not open a socket each. */
const MAX_IN_FLIGHT = 32;
/** Events held when WebhookConfig.maxEventsInMemory is not given. */
export const DEFAULT_MAX_EVENTS_IN_MEMORY = 10_000;

interface Waiting {
  readonly job: DeliveryJob;
  readonly recordedAtMs: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Delivers from an outbox with timers in this process: for `memory:` storage, where the events
 * themselves live in memory only (DESIGN.md). Same schedule, signing and outcomes as the durable queue.
 * It holds the deliveries of at most `config.maxEventsInMemory` events, and takes more from the outbox
 * only as earlier ones finish: while a receiver is down, the outbox fills instead, and its own bound
 * refuses creates. Dead deliveries are counted, not kept: with the events in this process alone, no
 * operator's command can reach them to deliver them again.
 */
export function startMemoryDispatcher(
  outbox: PlantEventOutbox,
  config: WebhookConfig,
  observer: WebhookObserver,
  onError: (error: unknown) => void,
): WebhookDispatcher {
  const maxEvents = config.maxEventsInMemory ?? DEFAULT_MAX_EVENTS_IN_MEMORY;
  const perEvent = Math.max(1, config.urls.length);
  const waiting = new Map<symbol, Waiting>();
  const ready: symbol[] = [];
  const inFlight = new Set<Promise<void>>();
  let dead = 0;
  let stopped = false;
  // The relay found no room: a delivery that finishes makes some, and the relay runs again then.
  let starved = false;
  const stopping = new AbortController();

  const pump = (): void => {
    while (!stopped && inFlight.size < MAX_IN_FLIGHT && ready.length > 0) {
      const key = ready.shift() as symbol;
      const entry = waiting.get(key);
      if (!entry) continue;
      // Whichever callback freed the slot is no parent of this attempt: only its job's trace context is.
      const attempt = context
        .with(ROOT_CONTEXT, () => attemptJob(config, entry.job, observer, stopping.signal))
        .then((step) => {
          // Abandoned at stop: still waiting, as the events are, until the process ends.
          if (step.kind === 'abandoned') return;
          waiting.delete(key);
          if (step.kind === 'retry') schedule(step.job, step.delayMs);
          if (step.kind === 'dead') dead += 1;
          if (starved && step.kind !== 'retry') {
            starved = false;
            relay.kick();
          }
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
    const entry: Waiting = { job, recordedAtMs: Date.parse(job.recordedAt), timer: undefined };
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
    (limit) =>
      outbox.relay(limit, (events) =>
        inRelaySpan(events, async () => {
          for (const job of firstAttempts(events, config.urls)) schedule(job, 0);
        }),
      ),
    onError,
    undefined,
    () => {
      const room = Math.floor((maxEvents * perEvent - waiting.size) / perEvent);
      if (room <= 0) starved = true;
      return room;
    },
  );

  return {
    kick: relay.kick,
    async backlog() {
      // One pass, no spread: the waiting deliveries may be far more than a call's arguments can be.
      let oldest = (await outbox.oldestRecordedAt())?.getTime() ?? Number.POSITIVE_INFINITY;
      for (const entry of waiting.values()) if (entry.recordedAtMs < oldest) oldest = entry.recordedAtMs;
      return {
        dead,
        oldestUndeliveredAt: oldest === Number.POSITIVE_INFINITY ? undefined : new Date(oldest),
      };
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
