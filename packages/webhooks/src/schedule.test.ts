import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetrySchedule } from './schedule.ts';

describe('parseRetrySchedule', () => {
  it("when DESIGN.md's default is read, then it is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toStrictEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('when waits are in ms and spaced, or the text is empty, then they are read', () => {
    expect(parseRetrySchedule(' 50ms, 1s ')).toStrictEqual([50, 1_000]);
    expect(parseRetrySchedule('')).toStrictEqual([]);
  });

  it.each(['5', '5d', '-1s', '1.5s', '5s,,5m'])('when it is %j, then it is refused', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/is not a wait/);
  });
});

describe('nextRetryDelay', () => {
  const schedule = [5_000, 300_000];

  it('when an attempt fails, then the next waits its planned time, within 20% jitter', () => {
    expect(nextRetryDelay(schedule, 0, undefined, () => 0)).toBe(4_000);
    expect(nextRetryDelay(schedule, 0, undefined, () => 0.5)).toBe(5_000);
    expect(nextRetryDelay(schedule, 1, undefined, () => 0.999_999)).toBe(360_000);
  });

  it('when the last attempt fails, then there is none after it', () => {
    expect(nextRetryDelay(schedule, 2)).toBeUndefined();
    expect(nextRetryDelay([], 0)).toBeUndefined();
  });

  it('when the receiver said Retry-After, then that is the wait, up to the longest of the schedule', () => {
    expect(nextRetryDelay(schedule, 0, 60_000)).toBe(60_000);
    expect(nextRetryDelay(schedule, 0, 0)).toBe(0);
    expect(nextRetryDelay(schedule, 0, 86_400_000)).toBe(300_000);
    expect(nextRetryDelay(schedule, 2, 1_000)).toBeUndefined();
  });
});
