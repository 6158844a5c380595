// The stop's one budget, SHUTDOWN_TIMEOUT_MS: every step of it ends within, or is abandoned.
import type { Logger } from 'pino';

/**
 * The end of the budget kept for closing what requests and webhook attempts used: the delivery
 * queue's note of the attempts abandoned (so they are made again within seconds, not when their job
 * expires) and the storage. A quarter of it, at most a second.
 */
export function closingShareMs(budgetMs: number): number {
  return Math.min(1_000, Math.floor(budgetMs / 4));
}

/**
 * Waits for a step of the stop until `by` (a performance.now() time). One still under way then is
 * abandoned with a warning naming it: nothing acknowledged waits on it (a plant answered 200 is
 * committed, an abandoned webhook attempt is made again), and main.ts exits once the stop resolves.
 * A failure it reports in time is thrown; a later one goes nowhere.
 */
export async function finishBy(
  step: Promise<void> | undefined,
  by: number,
  what: string,
  logger: Logger,
): Promise<void> {
  if (step === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, by - performance.now()));
  });
  try {
    if ((await Promise.race([step, late])) === 'late') {
      logger.warn({ step: what }, `stopping: ${what} did not end by the deadline: abandoned`);
    }
  } finally {
    clearTimeout(timer);
  }
}
