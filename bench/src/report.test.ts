// The bench's verdicts are the project's performance verdicts: how figures become ratios, which
// round is kept, and when a target is PASS, FAIL, UNDECIDED or NOT MEASURED.
import { describe, expect, it } from 'vitest';
import { bracketRatios, type RoundSegment } from './interleave.ts';
import {
  compare,
  describeSpread,
  evaluateGoals,
  GROWTH_MIN_RPS_RATIO,
  HOSTILE_MAX_RATIO,
  judgeRatios,
  levelRatios,
  median,
  renderMarkdown,
  renderText,
  summarizeSegments,
  throughputBasis,
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

/**
 * A target measured in interleaved rounds at one level: `values[r]` is round r + 1's req/s (and
 * CPU per request 1e6 / req/s, p50 1000 / req/s, so that each figure says the same); a closing
 * round when `closing` is given.
 */
function interleaved(
  key: TargetKey,
  connections: number,
  values: number[],
  more: (round: number) => Partial<LevelFigures> = () => ({}),
): TargetRun {
  const segments = values.map((value, index) =>
    figures(connections, value, {
      round: index + 1,
      cpuUsPerRequest: 1e6 / value,
      p50Ms: 1000 / value,
      p99Ms: 2000 / value,
      ...more(index + 1),
    }),
  );
  return run(key, [summarizeSegments(segments)], { segments });
}

describe('bracketRatios: each round against the baseline just before and just after it', () => {
  const segment = (side: string, round: number, value: number): RoundSegment<number> => ({
    side,
    round,
    figures: value,
  });

  it('when the baseline drifts between rounds, then each subject round is taken to the mean of its two neighbours', () => {
    const segments = [
      segment('bare', 1, 100),
      segment('service', 1, 90),
      segment('bare', 2, 80),
      segment('service', 2, 60),
      segment('bare', 3, 40),
    ];
    expect(bracketRatios(segments, 'service', 'bare', (value) => value)).toEqual([1, 1]);
  });

  it('when a subject is also a baseline, then its closing segment is no round of its own', () => {
    const segments = [
      segment('bare', 1, 100),
      segment('service', 1, 100),
      { side: 'bare', round: 2, closing: true, figures: 100 },
      { side: 'service', round: 2, closing: true, figures: 300 },
    ];
    expect(bracketRatios(segments, 'service', 'bare', (value) => value)).toEqual([1]);
  });

  it('when there is no baseline after a round, then the one before stands alone; a round without the baseline gives nothing', () => {
    const segments = [segment('bare', 1, 100), segment('service', 1, 50), segment('service', 2, 70)];
    expect(bracketRatios(segments, 'service', 'bare', (value) => value)).toEqual([0.5]);
  });
});

describe('judgeRatios: a verdict from the spread of the rounds', () => {
  it('when every round is on the right side, then PASS; every round on the wrong side, FAIL; on both sides, UNDECIDED', () => {
    expect(judgeRatios([0.86, 0.9, 1.2], 0.85, 'at least')).toBe('PASS');
    expect(judgeRatios([0.5, 0.84, 0.6], 0.85, 'at least')).toBe('FAIL');
    expect(judgeRatios([0.8, 0.9, 0.95], 0.85, 'at least')).toBe('UNDECIDED');
    expect(judgeRatios([1.1, 1.15], 1.15, 'at most')).toBe('PASS');
    expect(judgeRatios([1.14, 1.16], 1.15, 'at most')).toBe('UNDECIDED');
  });

  it('when the median is on the right side but one round is not, then UNDECIDED, not PASS', () => {
    const rounds = [0.9, 0.95, 0.7];
    expect(median(rounds)).toBeGreaterThan(0.85);
    expect(judgeRatios(rounds, 0.85, 'at least')).toBe('UNDECIDED');
  });

  it('when no round was measured, or one is NaN, then NOT MEASURED', () => {
    expect(judgeRatios([], 1, 'at least')).toBe('NOT MEASURED');
    expect(judgeRatios([1, Number.NaN], 1, 'at least')).toBe('NOT MEASURED');
  });

  it('the spread is told as the median and the lowest and highest round', () => {
    expect(describeSpread([0.63, 0.58, 0.6])).toBe('median 0.60x (3 rounds: 0.58x to 0.63x)');
    expect(describeSpread([])).toBe('not measured in this run');
  });
});

describe('throughputBasis', () => {
  it('at c16 and above a throughput target is judged on CPU per request; at c1 on req/s', () => {
    expect(throughputBasis(1)).toBe('req/s');
    expect(throughputBasis(16)).toBe('CPU/req');
    expect(throughputBasis(64)).toBe('CPU/req');
  });
});

describe('summarizeSegments', () => {
  it('takes the median of rates, latencies and CPU, adds up requests and errors, and keeps the highest peak RSS', () => {
    const summary = summarizeSegments([
      figures(16, 100, { round: 1, peakRssBytes: 3, non2xx: 1, cpuUsPerRequest: 10 }),
      figures(16, 300, { round: 2, peakRssBytes: 9, non2xx: 2, cpuUsPerRequest: 30 }),
      figures(16, 200, { round: 3, peakRssBytes: 5, cpuUsPerRequest: 20 }),
    ]);
    expect(summary).toMatchObject({
      connections: 16,
      requestsPerSecond: 200,
      cpuUsPerRequest: 20,
      peakRssBytes: 9,
      non2xx: 3,
      ok: 6000,
      durationSeconds: 30,
    });
    expect(summary.round).toBeUndefined();
  });
});

describe('compare', () => {
  it('when both sides ran in interleaved rounds, then each round gives a ratio: req/s and p99 subject over baseline, CPU baseline over subject', () => {
    const comparisons = compare([
      interleaved('koa', 16, [1000, 1000, 1000, 1000]),
      interleaved('memory', 16, [900, 800, 500]),
    ]);
    const ratios = comparisons.find((c) => c.subject === 'memory' && c.baseline === 'koa')?.levels[0];
    expect(ratios?.connections).toBe(16);
    expect(ratios?.rps).toEqual([0.9, 0.8, 0.5]);
    expect(ratios?.cpu.map((ratio) => Number(ratio.toFixed(6)))).toEqual([0.9, 0.8, 0.5]);
    expect(ratios?.p99.map((ratio) => Number(ratio.toFixed(6)))).toEqual([1.111111, 1.25, 2]);
  });

  it('when a run has no segments (one round), then its level counts as one round', () => {
    const ratios = levelRatios(
      [run('koa', [figures(16, 1000, { p99Ms: 4 })]), run('memory', [figures(16, 900, { p99Ms: 5 })])],
      'memory',
      'koa',
      16,
    );
    expect(ratios?.rps).toEqual([0.9]);
    expect(ratios?.p99).toEqual([1.25]);
  });

  it('when the baseline did not run, then no ratio is invented', () => {
    expect(compare([run('memory', [figures(16, 900)])])).toEqual([]);
  });
});

describe('evaluateGoals', () => {
  const memoryGoal = (c: number) =>
    c === 1 ? 'memory c1: req/s >= 0.85x koa minimal' : `memory c${c}: throughput >= 0.85x koa minimal`;
  const goalOf = (goals: ReturnType<typeof evaluateGoals>, goal: string) =>
    goals.find((candidate) => candidate.goal === goal);

  it('memory vs koa at c16: judged on CPU per request, PASS / FAIL / UNDECIDED from the spread of the rounds', () => {
    const koa = interleaved('koa', 16, [1000, 1000, 1000, 1000]);
    const verdict = (values: number[]) =>
      goalOf(evaluateGoals([koa, interleaved('memory', 16, values)], [16]), memoryGoal(16));
    expect(verdict([900, 860, 950])?.status).toBe('PASS');
    expect(verdict([600, 700, 840])?.status).toBe('FAIL');
    expect(verdict([800, 900, 870])).toMatchObject({
      status: 'UNDECIDED',
      basis: 'CPU/req',
      measured: expect.stringMatching(/^median 0\.87x \(3 rounds: 0\.80x to 0\.90x\); req\/s 0\.87x/),
    });
  });

  it('memory vs koa at c16: when req/s and CPU per request disagree, then CPU decides', () => {
    const koa = interleaved('koa', 16, [1000, 1000, 1000, 1000]);
    // The service answers as fast as koa but spends twice its CPU per request.
    const memory = interleaved('memory', 16, [1000, 1000, 1000], () => ({ cpuUsPerRequest: 2000 }));
    const goal = goalOf(evaluateGoals([koa, memory], [16]), memoryGoal(16));
    expect(goal?.status).toBe('FAIL');
    expect(goal?.measured).toContain('req/s 1.00x');
  });

  it('memory vs koa at c1: judged on req/s', () => {
    const goal = goalOf(
      evaluateGoals(
        [interleaved('koa', 1, [1000, 1000, 1000, 1000]), interleaved('memory', 1, [850, 900, 870])],
        [1],
      ),
      memoryGoal(1),
    );
    expect(goal).toMatchObject({ status: 'PASS', basis: 'req/s' });
  });

  it('when a target was not run, then its goals are NOT MEASURED, never PASS', () => {
    const goals = evaluateGoals([interleaved('memory', 1, [850, 850, 850])], [1]);
    expect(statusOf(goals, memoryGoal(1))).toBe('NOT MEASURED');
    expect(statusOf(goals, 'PostgreSQL c64: server peak RSS <= 150 MB')).toBe('NOT MEASURED');
  });

  it('every target of issue 14 is a verdict row', () => {
    const goals = evaluateGoals([], [1, 16, 64]).map((goal) => goal.goal);
    expect(goals).toEqual(
      expect.arrayContaining([
        'memory c16: throughput >= 0.85x koa minimal',
        'memory c64: throughput >= 0.85x koa minimal',
        'PostgreSQL c1: p50 <= 1.15x node:http + pg',
        'PostgreSQL c16: req/s >= 1.2x node:http + pg',
        'ES256 JWT c16 (cache warm): throughput >= 0.9x a static token',
        'embedded c1: req/s >= 10x json-server',
        'PostgreSQL with 1,000,000 plants stored, c64: req/s >= 0.9x the empty table',
        'PostgreSQL c64: server peak RSS <= 150 MB',
        'image on PostgreSQL c64: server peak RSS <= 150 MB',
      ]),
    );
  });

  it('peak RSS on PostgreSQL c64: judged round by round against 150 MB', () => {
    const rss = (peaks: number[]) =>
      statusOf(
        evaluateGoals(
          [
            interleaved('postgres', 64, [5000, 5000, 5000], (round) => ({
              peakRssBytes: (peaks[round - 1] ?? 0) * 2 ** 20,
            })),
          ],
          [64],
        ),
        'PostgreSQL c64: server peak RSS <= 150 MB',
      );
    expect(rss([140, 150, 120])).toBe('PASS');
    expect(rss([151, 160, 170])).toBe('FAIL');
    expect(rss([140, 151, 145])).toBe('UNDECIDED');
  });

  describe('the api image on PostgreSQL c64, its peak RSS judged as the host service is', () => {
    const imageGoal = 'image on PostgreSQL c64: server peak RSS <= 150 MB';
    const cpuGoal = "image on PostgreSQL c64: throughput vs the host's service (reported, no target)";
    const withPeaks = (key: TargetKey, peaks: number[]) =>
      interleaved(
        key,
        64,
        peaks.map(() => 5000),
        (round) => ({ peakRssBytes: (peaks[round - 1] ?? 0) * 2 ** 20 }),
      );
    const container = {
      image: 'localhost/plant-store-ci/api:drill',
      imageId: 'sha256:5a9fb7144c37',
      baseImage: 'localhost/plant-store-ci/node:24',
      buildSeconds: 0.4,
      buildUnchanged: true,
    };

    it('judged on every round of the container: PASS within 150 MB, FAIL above it, UNDECIDED across it', () => {
      const verdict = (peaks: number[]) =>
        statusOf(evaluateGoals([withPeaks('image', peaks)], [64]), imageGoal);
      expect(verdict([140, 150, 120])).toBe('PASS');
      expect(verdict([151, 160, 170])).toBe('FAIL');
      expect(verdict([140, 151, 145])).toBe('UNDECIDED');
    });

    it('the host service and the image are judged apart: one row each', () => {
      const goals = evaluateGoals(
        [withPeaks('postgres', [120, 125, 130]), withPeaks('image', [151, 155, 152])],
        [64],
      );
      expect(statusOf(goals, 'PostgreSQL c64: server peak RSS <= 150 MB')).toBe('PASS');
      expect(statusOf(goals, imageGoal)).toBe('FAIL');
    });

    it('when measured, then the row gives the rounds, VmRSS at the end, the cgroup peak and the host service of the same run', () => {
      const image = withPeaks('image', [110, 130, 120]);
      image.container = {
        ...container,
        rssAtEndBytes: 125 * 2 ** 20,
        cgroupPeakBytes: 140 * 2 ** 20,
        cgroupPeakSource: 'memory.peak',
      };
      const goals = evaluateGoals([withPeaks('postgres', [130, 134, 140]), image], [64]);
      expect(goals.find((goal) => goal.goal === imageGoal)).toEqual({
        goal: imageGoal,
        basis: 'peak RSS',
        measured:
          "median 120 MB (3 rounds: 110 MB to 130 MB); VmRSS at the end 125 MB; container's cgroup at its peak 140 MB over its whole life (memory.peak); host service 134 MB in the same run",
        status: 'PASS',
      });
    });

    it('when it did not run, then NOT MEASURED; when it could not (no engine, no image), then NOT MEASURED with the reason', () => {
      expect(goalOf(evaluateGoals([], [64]), imageGoal)).toMatchObject({
        status: 'NOT MEASURED',
        measured: 'not measured in this run',
      });
      const failed = run('image', [], {
        error: 'no Docker engine answers (/usr/bin/docker): Cannot connect | to the daemon\nmore lines',
      });
      expect(goalOf(evaluateGoals([failed], [64]), imageGoal)).toMatchObject({
        status: 'NOT MEASURED',
        measured: 'not measured: no Docker engine answers (/usr/bin/docker): Cannot connect / to the daemon',
      });
      // No throughput row without rounds.
      expect(goalOf(evaluateGoals([failed], [64]), cpuGoal)).toBeUndefined();
    });

    it('its CPU per request against the host service of the same rounds is reported (INFO), never judged', () => {
      const goals = evaluateGoals(
        [interleaved('postgres', 64, [5000, 5000, 5000, 5000]), interleaved('image', 64, [4000, 5000, 2500])],
        [64],
      );
      expect(goalOf(goals, cpuGoal)).toEqual({
        goal: cpuGoal,
        basis: 'CPU/req',
        measured: 'median 0.80x (3 rounds: 0.50x to 1.00x); 250 vs 200 us/req',
        status: 'INFO',
      });
    });
  });

  it('PostgreSQL c1: p50 judged against 1.15x the bare node:http + pg server, round by round', () => {
    const bare = interleaved('bare-pg', 1, [2000, 2000, 2000, 2000]);
    const verdict = (values: number[]) =>
      statusOf(
        evaluateGoals([bare, interleaved('postgres', 1, values)], [1]),
        'PostgreSQL c1: p50 <= 1.15x node:http + pg',
      );
    // p50 is 1000 / req/s in these figures: 2000 req/s is 0.5 ms.
    expect(verdict([1800, 1900, 2100])).toBe('PASS');
    expect(verdict([1500, 1600, 1700])).toBe('FAIL');
    expect(verdict([1600, 1900, 2000])).toBe('UNDECIDED');
  });

  it('PostgreSQL c16: judged on req/s against 1.2x node:http + pg, whatever the CPU per request says', () => {
    const bare = interleaved('bare-pg', 16, [5000, 5000, 5000, 5000], () => ({ cpuUsPerRequest: 50 }));
    const service = interleaved('postgres', 16, [6500, 7000, 6100], () => ({ cpuUsPerRequest: 100 }));
    const goal = goalOf(evaluateGoals([bare, service], [16]), 'PostgreSQL c16: req/s >= 1.2x node:http + pg');
    expect(goal).toMatchObject({ status: 'PASS', basis: 'req/s' });
  });

  it('when group commit adds latency alone (p50 over 1.1x GROUP_COMMIT=off at c1 in every round), then it fails', () => {
    const goals = evaluateGoals(
      [
        interleaved('postgres-single', 1, [1000, 1000, 1000, 1000]),
        interleaved('postgres', 1, [800, 850, 880]),
      ],
      [1],
    );
    expect(
      statusOf(goals, 'group commit c1: p50 <= 1.1x GROUP_COMMIT=off (no added latency without concurrency)'),
    ).toBe('FAIL');
  });

  it('growth: 1,000,000 rows against the empty table at c64, judged on req/s', () => {
    const goals = evaluateGoals(
      [
        interleaved('postgres', 64, [10_000, 10_000, 10_000, 10_000]),
        interleaved('growth', 64, [9_500, 8_500, 9_200]),
      ],
      [64],
    );
    expect(
      statusOf(goals, 'PostgreSQL with 1,000,000 plants stored, c64: req/s >= 0.9x the empty table'),
    ).toBe('UNDECIDED');
  });

  describe('growth: a large table against a small one at c64, judged on req/s round by round', () => {
    const writes10m = 'PostgreSQL with 10,000,000 plants stored, c64: req/s >= 0.9x the empty table';
    const get1m =
      'PostgreSQL GET /plants/{id} with 1,000,000 plants stored, c64: req/s >= 0.9x 10,000 plants';
    const get10m =
      'PostgreSQL GET /plants/{id} with 10,000,000 plants stored, c64: req/s >= 0.9x 10,000 plants';
    const list1m =
      'PostgreSQL GET /plants?limit=100&after={id} with 1,000,000 plants stored, c64: req/s >= 0.9x 10,000 plants';
    const list10m =
      'PostgreSQL GET /plants?limit=100&after={id} with 10,000,000 plants stored, c64: req/s >= 0.9x 10,000 plants';

    it('every growth target of the second round (1,000,000 and 10,000,000 plants; creates, GET by id, list pages) is a verdict row, NOT MEASURED when not run', () => {
      const goals = evaluateGoals([], [1, 16, 64]);
      for (const goal of [
        'PostgreSQL with 1,000,000 plants stored, c64: req/s >= 0.9x the empty table',
        writes10m,
        get1m,
        get10m,
        list1m,
        list10m,
      ])
        expect(goalOf(goals, goal)).toMatchObject({ status: 'NOT MEASURED', basis: 'req/s' });
      expect(GROWTH_MIN_RPS_RATIO).toBe(0.9);
    });

    it('10,000,000 plants: against the empty table, PASS / FAIL / UNDECIDED from the spread, with both rates', () => {
      const empty = interleaved('postgres', 64, [10_000, 10_000, 10_000, 10_000]);
      const verdict = (values: number[]) =>
        goalOf(evaluateGoals([empty, interleaved('growth-10m', 64, values)], [64]), writes10m);
      expect(verdict([9_100, 9_500, 10_200])?.status).toBe('PASS');
      expect(verdict([8_000, 8_900, 7_000])?.status).toBe('FAIL');
      expect(verdict([9_500, 8_500, 9_200])).toMatchObject({
        status: 'UNDECIDED',
        basis: 'req/s',
        measured: expect.stringMatching(
          /^median 0\.92x \(3 rounds: 0\.85x to 0\.95x\); CPU\/req 0\.92x, p50 1\.09x; 9,200 vs 10,000 req\/s$/,
        ),
      });
    });

    it('10,000,000 plants: judged on req/s, whatever the CPU per request says', () => {
      const empty = interleaved('postgres', 64, [10_000, 10_000, 10_000, 10_000], () => ({
        cpuUsPerRequest: 100,
      }));
      const large = interleaved('growth-10m', 64, [9_500, 9_600, 9_700], () => ({ cpuUsPerRequest: 200 }));
      expect(goalOf(evaluateGoals([empty, large], [64]), writes10m)?.status).toBe('PASS');
    });

    it('reads: each large table against the same read of the 10,000-plant table, GET with GET and list with list', () => {
      const goals = evaluateGoals(
        [
          interleaved('growth-get-10k', 64, [5_000, 5_000, 5_000, 5_000]),
          interleaved('growth-get-1m', 64, [4_900, 4_800, 5_100]),
          interleaved('growth-get-10m', 64, [4_000, 4_400, 4_300]),
          interleaved('growth-list-10k', 64, [1_000, 1_000, 1_000, 1_000]),
          interleaved('growth-list-1m', 64, [950, 850, 990]),
          interleaved('growth-list-10m', 64, [700, 600, 650]),
        ],
        [64],
      );
      expect(goalOf(goals, get1m)).toMatchObject({
        status: 'PASS',
        basis: 'req/s',
        measured: expect.stringMatching(
          /^median 0\.98x \(3 rounds: 0\.96x to 1\.02x\).*; 4,900 vs 5,000 req\/s$/,
        ),
      });
      expect(statusOf(goals, get10m)).toBe('FAIL');
      expect(statusOf(goals, list1m)).toBe('UNDECIDED');
      expect(goalOf(goals, list10m)).toMatchObject({
        status: 'FAIL',
        measured: expect.stringMatching(/^median 0\.65x .*; 650 vs 1,000 req\/s$/),
      });
    });

    it('reads: a large table whose baseline read did not run is NOT MEASURED, never compared with another read', () => {
      const goals = evaluateGoals(
        [
          interleaved('growth-list-10k', 64, [1_000, 1_000, 1_000, 1_000]),
          interleaved('growth-get-1m', 64, [4_900, 4_800, 5_100]),
        ],
        [64],
      );
      expect(statusOf(goals, get1m)).toBe('NOT MEASURED');
    });

    it('reads: the results table gives each large table its ratio to the 10,000-plant one', () => {
      const runs = [
        interleaved('growth-get-10k', 64, [5_000, 5_000, 5_000, 5_000]),
        interleaved('growth-get-10m', 64, [4_000, 4_400, 4_300]),
      ];
      const report = {
        settings: { connections: [64], rounds: 3 },
        runs,
        comparisons: compare(runs),
        goals: evaluateGoals(runs, [64]),
      } as unknown as BenchReport;
      const text = renderText(report);
      expect(text).toMatch(/\ngrowth-get-10m +c64 +3 +4,300 .* growth-get-10k +0\.86x /);
      expect(text).toContain(
        'service, PostgreSQL, GET /plants/{id}, 10M rows / service, PostgreSQL, GET /plants/{id}, 10k rows',
      );
      expect(text).toMatch(/ 10k rows +c64 +0\.86x \(0\.80-0\.88\)/);
      expect(text).toContain(`${'FAIL'.padEnd(12)} ${get10m}`);
    });
  });

  it('when a JWT target reaches 0.9x the static token in CPU per request at c16 in every round, then PASS; in none, FAIL', () => {
    const goals = evaluateGoals(
      [
        interleaved('memory', 16, [1000, 1000, 1000, 1000]),
        interleaved('jwt-es256', 16, [910, 950, 920]),
        interleaved('jwt-rs256', 16, [899, 700, 800]),
      ],
      [16],
    );
    expect(statusOf(goals, 'ES256 JWT c16 (cache warm): throughput >= 0.9x a static token')).toBe('PASS');
    expect(statusOf(goals, 'RS256 JWT c16 (cache warm): throughput >= 0.9x a static token')).toBe('FAIL');
  });

  it('embedded vs json-server: c1 on req/s, c64 on CPU per request', () => {
    const goals = evaluateGoals(
      [
        interleaved('json-server', 1, [200, 200, 200, 200]),
        interleaved('embedded', 1, [2100, 2500, 2200]),
        interleaved('json-server', 64, [300, 300, 300, 300]),
      ],
      [1, 64],
    );
    expect(goalOf(goals, 'embedded c1: req/s >= 10x json-server')).toMatchObject({
      status: 'PASS',
      basis: 'req/s',
    });
    expect(goalOf(goals, 'embedded c64: throughput >= 10x json-server')?.basis).toBe('CPU/req');
  });

  it('the text report starts with the CPU model, the cores and the load average at the start and the end', () => {
    const runs = [
      interleaved('koa', 16, [1000, 1000, 1000, 1000]),
      interleaved('memory', 16, [900, 800, 850]),
    ];
    const report = {
      machine: { cpuModel: 'Intel(R) Xeon(R) Processor', cores: 2, loadAverageAtStart: [1.5, 1, 0.5] },
      loadAverageAtEnd: [2, 1.25, 0.75],
      settings: { connections: [16], rounds: 3 },
      runs,
      comparisons: compare(runs),
      goals: evaluateGoals(runs, [16]),
    } as unknown as BenchReport;
    const text = renderText(report);
    expect(text.split('\n')[0]).toBe(
      'Intel(R) Xeon(R) Processor, 2 cores; load average 1.50 1.00 0.50 at the start, 2.00 1.25 0.75 at the end',
    );
    expect(text).toMatch(/service, memory: \/ baseline: koa minimal +c16 +0\.85x \(0\.80-0\.90\)/);
    expect(text).toMatch(/UNDECIDED +memory c16: throughput >= 0\.85x koa minimal +CPU\/req +median 0\.85x/);
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
      // No row of pg-list, which did not run (the growth rows of list pages are another target's).
      expect(goals.some((g) => g.goal.includes('limit=100') && g.goal.includes('node:http + pg'))).toBe(
        false,
      );
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
        machine: { packages: {}, loadAverageAtStart: [0, 0, 0], backgroundCpuPercent: 0 },
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
