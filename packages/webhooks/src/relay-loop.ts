import type { PlantEventOutbox, RecordedEvent } from '@plant-store/domain';

export const RELAY_BATCH = 500;
const RELAY_INTERVAL_MS = 1_000;

/**
 * Hands the outbox on: soon after each kick, and every second for events that other processes (or
 * an earlier life of this one) recorded. One relay at a time; a kick during one runs another after.
 */
export function startRelayLoop<Tx>(
  outbox: PlantEventOutbox<Tx>,
  forward: (events: readonly RecordedEvent[], tx: Tx) => Promise<void>,
  onError: (error: unknown) => void,
): { kick(): void; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const drain = async (): Promise<void> => {
    do {
      again = false;
      try {
        while (!stopped && (await outbox.relay(RELAY_BATCH, forward)) === RELAY_BATCH);
      } catch (error) {
        // Left in the outbox: the next kick or tick tries again.
        onError(error);
      }
    } while (again && !stopped);
  };

  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain().finally(() => {
      running = undefined;
    });
  };

  const timer = setInterval(kick, RELAY_INTERVAL_MS);
  kick();
  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
