import { context, trace } from '@opentelemetry/api';

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
  // it runs outside that request's span (a timer would keep it current).
  const runDetached = (): void => context.with(trace.deleteSpan(context.active()), run);

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
