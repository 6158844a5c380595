import { context, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import type { RecordedEvent } from '@plant-store/domain';
import { ATTR_WEBHOOK_EVENT_COUNT } from './semconv.ts';
import { inSpan, linksTo } from './tracing.ts';

export const RELAY_BATCH = 500;
const RELAY_INTERVAL_MS = 1_000;
/**
 * How long a kick waits before the relay runs: the creates of that window go in one transaction.
 * Under load that is one relay per window instead of one per handful of creates.
 */
const KICK_WINDOW_MS = 20;

/**
 * Hands the outbox on: shortly after a kick, and every second for events that other processes (or
 * an earlier life of this one) recorded. One relay at a time; kicks during one run another after.
 * `relay(limit)` hands on up to `limit` events (an outbox's relay, bound to what forwards them) and
 * resolves with how many; `room` says how many can be taken now: the rest wait in the outbox.
 */
export function startRelayLoop(
  relay: (limit: number) => Promise<number>,
  onError: (error: unknown) => void,
  onRelayed: (count: number) => void = () => {},
  room: () => number = () => RELAY_BATCH,
): { kick(): void; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let scheduled: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = false;

  const drain = async (): Promise<void> => {
    let moved: number;
    let limit: number;
    do {
      limit = Math.min(RELAY_BATCH, room());
      if (limit <= 0) return;
      try {
        moved = await relay(limit);
        if (moved > 0) onRelayed(moved);
      } catch (error) {
        // Left in the outbox: the next kick or tick tries again.
        onError(error);
        return;
      }
    } while (!stopped && moved === limit);
  };

  const run = (): void => {
    scheduled = undefined;
    again = false;
    running = drain().finally(() => {
      running = undefined;
      if (again) schedule(KICK_WINDOW_MS);
    });
  };

  // A kick comes from a create's request, but the relay it starts serves every create of the window:
  // it runs in no request's context (a timer would keep the kicker's current).
  const runDetached = (): void => context.with(ROOT_CONTEXT, run);

  const schedule = (delayMs: number): void => {
    if (stopped || scheduled) return;
    if (running) {
      again = true;
      return;
    }
    scheduled = setTimeout(runDetached, delayMs);
  };

  const timer = setInterval(() => schedule(0), RELAY_INTERVAL_MS);
  schedule(0);
  return {
    kick: () => schedule(KICK_WINDOW_MS),
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(scheduled);
      scheduled = undefined;
      await running;
    },
  };
}

/**
 * Hands events on in a span of their relay, linked to each event's create (one relay carries the
 * events of many): no span when there are none. INTERNAL: where a queue takes them, its client makes
 * the PRODUCER span (pg-boss's `insert plant-webhook-deliveries`, a child of this one).
 */
export function inRelaySpan(events: readonly RecordedEvent[], handOn: () => Promise<void>): Promise<void> {
  if (events.length === 0) return handOn();
  return inSpan(
    'webhook relay',
    {
      kind: SpanKind.INTERNAL,
      root: true,
      links: linksTo(events.map(({ id, traceContext }) => ({ eventId: id, traceContext }))),
      attributes: { [ATTR_WEBHOOK_EVENT_COUNT]: events.length },
    },
    handOn,
  );
}
