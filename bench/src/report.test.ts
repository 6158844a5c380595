// The bench's verdicts are the project's performance verdicts: how figures become ratios, which
// round is kept, and when a target is PASS, FAIL, UNDECIDED or NOT MEASURED.
import { describe, expect, it } from 'vitest';
import {
  bestOfRounds,
  compare,
  evaluateGoals,
  HOSTILE_MAX_RATIO,
  median,
  renderMarkdown,
  renderText,
  WEBHOOK_MIN_RPS_RATIO,
} from './report.ts';
import type {
  BenchReport,
  HostileBodiesFigures,
  LevelFigures,
  ReadFigures,
  TargetKey,
  TargetRun,
  WebhookFigures,
} from './results.ts';

function figures(
  connections: number,
  requestsPerSecond: number,
  more: Partial<LevelFigures> = {},
): LevelFigures {
  return {
    connections,
    durationSeconds: 10,
    requestsPerSecond,
    ok: requestsPerSecond * 10,
    non2xx: 0,
    socketErrors: 0,
    p50Ms: 1,
    p99Ms: 2,
    maxMs: 3,
    loadGeneratorCpuPercent: 50,
    machineCpuPercent: 90,
    ...more,
  };
}

function run(key: TargetKey, levels: LevelFigures[], more: Partial<TargetRun> = {}): TargetRun {
  return { key, label: key, levels, notes: [], ...more };
}

const statusOf = (goals: ReturnType<typeof evaluateGoals>, goal: string) =>
  goals.find((candidate) => candidate.goal === goal)?.status;

describe('median', () => {
  it('when the count is odd, then it is the middle value; when even, the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('when there is no value, then it is NaN (not measured), never 0', () => {
    expect(median([])).toBeNaN();
  });
});

function reads(cpuRatios: number[], more: Partial<ReadFigures> = {}): ReadFigures {
  return {
    request: 'GET /plants/{id}',
    seeded: 10_000,
    connections: 16,
    segmentSeconds: 1,
    bareCpuUsPerRequest: [100, 100],
    serviceCpuUsPerRequest: cpuRatios.map((ratio) => ratio * 100),
    bareRequestsPerSecond: [6000, 6000],
    serviceRequestsPerSecond: cpuRatios.map((ratio) => 6000 / ratio),
    cpuRatios,
    rpsRatios: cpuRatios.map((ratio) => 1 / ratio),
    ...more,
  };
}

function webhook(rpsRatios: number[], more: Partial<WebhookFigures> = {}): WebhookFigures {
  return {
    connections: 64,
    segmentSeconds: 1,
    drainLimitSeconds: 30,
    offCpuUsPerRequest: [100, 100],
    onCpuUsPerRequest: rpsRatios.map((ratio) => 100 / ratio),
    onCpuUsPerRequestDrained: rpsRatios.map((ratio) => 200 / ratio),
    offRequestsPerSecond: [5000, 5000],
    onRequestsPerSecond: rpsRatios.map((ratio) => 5000 * ratio),
    rpsRatios,
    cpuRatios: rpsRatios.map((ratio) => 2 / ratio),
    created: rpsRatios.map((ratio) => 5000 * ratio),
    lagSeconds: rpsRatios.map(() => 0.5),
    receivedRequests: 10_000,
    receivedDistinct: 10_000,
    expectedDeliveries: 10_000,
    shortfall: 0,
    ...more,
  };
}

describe('bestOfRounds', () => {
  it('when a target ran in several rounds, then each level keeps the round with the most req/s', () => {
    const merged = bestOfRounds([
      [run('memory', [figures(1, 100), figures(16, 900)])],
      [run('memory', [figures(1, 120), figures(16, 800)])],
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]?.levels.map((level) => [level.connections, level.requestsPerSecond])).toEqual([
      [1, 120],
      [16, 900],
    ]);
  });

  it('when a round failed, then its error is kept beside the figures of the others', () => {
    const merged = bestOfRounds([
      [run('postgres', [figures(1, 100)])],
      [run('postgres', [], { error: 'the server did not start' })],
    ]);
    expect(merged[0]?.error).toBe('the server did not start');
    expect(merged[0]?.levels.map((level) => level.requestsPerSecond)).toEqual([100]);
  });
});

describe('bestOfRounds, reads on PostgreSQL', () => {
  it('when a read ran in several rounds of the bench, then every round of each is kept, together', () => {
    const merged = bestOfRounds([
      [run('pg-get', [], { reads: reads([2]) })],
      [run('pg-get', [], { reads: reads([3, 4]) })],
    ]);
    expect(merged[0]?.reads?.cpuRatios).toEqual([2, 3, 4]);
    expect(merged[0]?.reads?.bareCpuUsPerRequest).toEqual([100, 100, 100, 100]);
  });
});

describe('bestOfRounds, the webhook', () => {
  it('when it ran in several rounds of the bench, then every round is kept and the deliveries are added up', () => {
    const merged = bestOfRounds([
      [run('webhook', [], { webhook: webhook([0.9]) })],
      [run('webhook', [], { webhook: webhook([0.7, 0.8], { shortfall: 3, expectedDeliveries: 10_003 }) })],
    ]);
    expect(merged[0]?.webhook?.rpsRatios).toEqual([0.9, 0.7, 0.8]);
    expect(merged[0]?.webhook?.offRequestsPerSecond).toEqual([5000, 5000, 5000, 5000]);
    expect(merged[0]?.webhook?.expectedDeliveries).toBe(20_003);
    expect(merged[0]?.webhook?.receivedDistinct).toBe(20_000);
    expect(merged[0]?.webhook?.shortfall).toBe(3);
  });
});

describe('compare', () => {
  it('when both sides ran at a level, then the ratio is subject over baseline, for req/s and p99', () => {
    const comparisons = compare([
      run('koa', [figures(16, 1000, { p99Ms: 4 })]),
      run('memory', [figures(16, 900, { p99Ms: 5 })]),
    ]);
    expect(comparisons.find((c) => c.subject === 'memory' && c.baseline === 'koa')?.ratios).toEqual([
      { connections: 16, requestsPerSecond: 0.9, p99: 1.25 },
    ]);
  });

  it('when the baseline did not run, then no ratio is invented', () => {
    expect(compare([run('memory', [figures(16, 900)])])).toEqual([]);
  });
});

describe('evaluateGoals', () => {
  const goal = (c: number) => `memory c${c}: req/s >= 0.85x koa minimal`;

  it('when the service reaches 0.85x koa, then PASS; below it, FAIL', () => {
    const goals = evaluateGoals(
      [run('koa', [figures(1, 1000), figures(16, 1000)]), run('memory', [figures(1, 850), figures(16, 849)])],
      [1, 16],
    );
    expect(statusOf(goals, goal(1))).toBe('PASS');
    expect(statusOf(goals, goal(16))).toBe('FAIL');
  });

  it('when a target was not run, then its goals are NOT MEASURED, never PASS', () => {
    const goals = evaluateGoals([run('memory', [figures(1, 850)])], [1]);
    expect(statusOf(goals, goal(1))).toBe('NOT MEASURED');
    expect(statusOf(goals, 'PostgreSQL c64: server peak RSS <= 150 MB')).toBe('NOT MEASURED');
  });

  it('when the server peaks above 150 MB at c64 on PostgreSQL, then the memory goal fails', () => {
    const goals = evaluateGoals(
      [run('postgres', [figures(64, 5000, { peakRssBytes: 151 * 1024 * 1024 })])],
      [64],
    );
    expect(statusOf(goals, 'PostgreSQL c64: server peak RSS <= 150 MB')).toBe('FAIL');
  });

  it('when group commit adds latency alone (p50 over 1.1x GROUP_COMMIT=off at c1), then it fails', () => {
    const goals = evaluateGoals(
      [
        run('postgres', [figures(1, 900, { p50Ms: 1.2 })]),
        run('postgres-single', [figures(1, 1000, { p50Ms: 1 })]),
      ],
      [1],
    );
    expect(
      statusOf(goals, 'group commit c1: p50 <= 1.1x GROUP_COMMIT=off (no added latency without concurrency)'),
    ).toBe('FAIL');
  });

  it('when a JWT target reaches 0.9x the static token at c16, then PASS; below it, FAIL', () => {
    const goals = evaluateGoals(
      [
        run('memory', [figures(16, 1000)]),
        run('jwt-es256', [figures(16, 900)]),
        run('jwt-rs256', [figures(16, 899)]),
      ],
      [16],
    );
    expect(statusOf(goals, 'ES256 JWT c16: req/s >= 0.9x a static token')).toBe('PASS');
    expect(statusOf(goals, 'RS256 JWT c16: req/s >= 0.9x a static token')).toBe('FAIL');
  });

  describe('reads on PostgreSQL, against the bare node:http + pg server', () => {
    const cpuGoal = 'PostgreSQL GET /plants/{id} c16: CPU/request vs node:http + pg (reported, no target)';
    const rpsGoal = 'PostgreSQL GET /plants/{id} c16: req/s vs node:http + pg (reported, no target)';

    it('when measured, then reported with no target (INFO): the median ratio, the rounds range and both figures', () => {
      const goals = evaluateGoals([run('pg-get', [], { reads: reads([2, 3, 2.5]) })], []);
      expect(goals.find((g) => g.goal === cpuGoal)).toEqual({
        goal: cpuGoal,
        measured: 'median 2.50x (rounds 2.00x to 3.00x; 250 us/req vs 100 us/req)',
        status: 'INFO',
      });
      expect(goals.find((g) => g.goal === rpsGoal)?.measured).toBe(
        'median 0.40x (rounds 0.33x to 0.50x; 2,400 req/s vs 6,000 req/s)',
      );
      expect(goals.some((g) => g.goal.includes('limit=100'))).toBe(false);
    });

    it('when no round was measured, then NOT MEASURED, never INFO', () => {
      const goals = evaluateGoals([run('pg-get', [], { reads: reads([]) })], []);
      expect(statusOf(goals, cpuGoal)).toBe('NOT MEASURED');
      expect(statusOf(goals, rpsGoal)).toBe('NOT MEASURED');
    });

    it('when measured, then the text report has a row of it, with each round', () => {
      const runs = [
        run('pg-list', [], { reads: reads([2, 3], { request: 'GET /plants?limit=100&after={id}' }) }),
      ];
      const report = {
        settings: { connections: [16] },
        runs,
        comparisons: [],
        goals: evaluateGoals(runs, [16]),
      } as unknown as BenchReport;
      expect(renderText(report)).toMatch(
        /GET \/plants\?limit=100&after=\{id\} +c16 +250 +100 +2\.50x .* 2\.00x 3\.00x/,
      );
    });
  });

  describe('the webhook on vs off, judged round by round', () => {
    const rpsGoal = `webhook on >= ${WEBHOOK_MIN_RPS_RATIO}x off at c64: POST /plants req/s on PostgreSQL`;
    const cpuGoal =
      'webhook on vs off at c64: service CPU/request, delivering included (reported, no target)';
    const deliveryGoal =
      'webhook deliveries keep up: every plant created delivered within 30 s of its segment';
    const goalsOf = (figures: WebhookFigures) =>
      evaluateGoals([run('webhook', [], { webhook: figures })], []);

    it(`when every round reaches ${WEBHOOK_MIN_RPS_RATIO}x off in req/s, then PASS; when none does, FAIL; when they straddle it, UNDECIDED`, () => {
      expect(statusOf(goalsOf(webhook([0.8, 0.95, 1.1])), rpsGoal)).toBe('PASS');
      expect(statusOf(goalsOf(webhook([0.4, 0.79])), rpsGoal)).toBe('FAIL');
      expect(statusOf(goalsOf(webhook([0.7, 0.9])), rpsGoal)).toBe('UNDECIDED');
    });

    it('when measured, then the req/s row gives the median, the rounds range and both rates; CPU is reported (INFO)', () => {
      const goals = goalsOf(webhook([0.5, 0.4, 0.45]));
      expect(goals.find((g) => g.goal === rpsGoal)?.measured).toBe(
        'median 0.45x (rounds 0.40x to 0.50x; 2,250 vs 5,000 req/s)',
      );
      expect(goals.find((g) => g.goal === cpuGoal)).toEqual({
        goal: cpuGoal,
        measured: 'median 4.44x (rounds 4.00x to 5.00x; 444 vs 100 us/req, 222 during the load alone)',
        status: 'INFO',
      });
    });

    it('when no round was measured, then NOT MEASURED, never PASS', () => {
      const goals = goalsOf(webhook([], { expectedDeliveries: 0, receivedDistinct: 0, receivedRequests: 0 }));
      expect(statusOf(goals, rpsGoal)).toBe('NOT MEASURED');
      expect(statusOf(goals, cpuGoal)).toBe('NOT MEASURED');
      expect(statusOf(goals, deliveryGoal)).toBe('NOT MEASURED');
    });

    it('when every delivery arrived within the wait, then PASS, with the lag; when some are missing, FAIL', () => {
      const kept = goalsOf(webhook([1, 1, 1], { lagSeconds: [0.25, 1.5, 0.5], receivedRequests: 10_002 }));
      expect(kept.find((g) => g.goal === deliveryGoal)).toEqual({
        goal: deliveryGoal,
        measured:
          '10,000 of 10,000 received (2 more than once); lag after a segment median 0.50 s, max 1.50 s; ' +
          '3,333 deliveries/s over segment and lag, for 5,000 creates/s',
        status: 'PASS',
      });
      const short = goalsOf(
        webhook([1], { receivedDistinct: 9_990, receivedRequests: 9_990, shortfall: 10, lagSeconds: [] }),
      );
      expect(short.find((g) => g.goal === deliveryGoal)).toEqual({
        goal: deliveryGoal,
        measured: '9,990 of 10,000 received',
        status: 'FAIL',
      });
    });

    it('when measured, then the text report and BENCHMARKS.md have its table, "on" with each round and the verdict', () => {
      const runs = [run('webhook', [], { webhook: webhook([0.5, 0.9]) })];
      const report = {
        machine: { packages: {}, loadAverageAtStart: 0, backgroundCpuPercent: 0 },
        settings: { connections: [64], durationSeconds: 4, warmupSeconds: 2, rounds: 1, seedRows: 0 },
        runs,
        comparisons: [],
        goals: evaluateGoals(runs, [64]),
        wallSeconds: 1,
      } as unknown as BenchReport;
      expect(renderText(report)).toMatch(/\noff +5,000 +100 +1\.00x +1\.00x\n/);
      expect(renderText(report)).toMatch(
        /\non +3,500 +156 +311 +0\.70x +3\.11x +0\.50x 0\.90x +10,000 of 10,000 +0\.50 \(0\.50\) +UNDECIDED/,
      );
      expect(renderMarkdown(report)).toContain('## The webhook on creation');
    });
  });

  describe('hostile bodies, judged round by round', () => {
    const hostile = (ratios: number[]): HostileBodiesFigures => ({
      bytes: 60_000,
      connections: 4,
      segmentSeconds: 1,
      plainLabel: 'plain',
      plainCpuUsPerRequest: [100, 100],
      shapes: [{ key: 'deep', label: 'deep nesting', status: 200, cpuUsPerRequest: [200, 200], ratios }],
    });
    const verdict = (ratios: number[]) =>
      evaluateGoals([run('hostile', [], { hostile: hostile(ratios) })], []).find((g) =>
        g.goal.startsWith('hostile'),
      )?.status;

    it(`when every round is within ${HOSTILE_MAX_RATIO}x, then PASS; when none is, FAIL; when they straddle it, UNDECIDED`, () => {
      expect(verdict([1.2, 2.9, 3])).toBe('PASS');
      expect(verdict([3.1, 4])).toBe('FAIL');
      expect(verdict([2.5, 3.5])).toBe('UNDECIDED');
    });

    it('when no round was measured, then NOT MEASURED', () => {
      expect(verdict([])).toBe('NOT MEASURED');
    });
  });
});
