import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` every 20 ms until it holds, and resolves with how long that took (ms); rejects naming
 * `what` once `timeoutMs` has passed. For what another process or a background loop does in its time.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
  return Math.round(performance.now() - started);
}
