// The bench's verdicts are the project's performance verdicts: how figures become ratios, which
// round is kept, and when a target is PASS, FAIL, UNDECIDED or NOT MEASURED.
import { describe, expect, it } from 'vitest';
import { bestOfRounds, compare, evaluateGoals, HOSTILE_MAX_RATIO, median, renderText } from './report.ts';
import type {
  BenchReport,
  HostileBodiesFigures,
  LevelFigures,
  ReadFigures,
  TargetKey,
  TargetRun,
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
