const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** DESIGN.md's schedule: the waits before the 2nd to 8th attempt. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/**
 * WEBHOOK_RETRY_SCHEDULE: comma-separated waits (`500ms`, `5s`, `5m`, `2h`), each before one more
 * attempt; an empty text means no retry. Throws an Error naming the entry it cannot read.
 */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((entry) => {
    const match = /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(entry);
    if (!match) throw new Error(`"${entry.trim()}" is not a wait such as 500ms, 5s, 5m or 2h`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}

// A loop, not a spread: a schedule's length is the operator's to choose.
function longest(schedule: readonly number[]): number {
  let longestMs = 0;
  for (const waitMs of schedule) if (waitMs > longestMs) longestMs = waitMs;
  return longestMs;
}

/**
 * How long to wait after failed attempt number `attempt` (0 for the first), or undefined when that
 * was the last. Jitter of ±20% keeps receivers that came back from a flood of synchronised retries.
 * A receiver's Retry-After (429, 503) replaces the wait, up to the longest wait of the schedule.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  const planned = schedule[attempt];
  if (planned === undefined) return undefined;
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, longest(schedule));
  return Math.round(planned * (0.8 + 0.4 * random()));
}
