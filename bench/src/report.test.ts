// The bench's verdicts are the project's performance verdicts: how segments become ratios, which
// segments bracket a round, and when a target is PASS, FAIL, UNDECIDED or NOT MEASURED.
import { describe, expect, it } from 'vitest';
import {
  CHART_PATH,
  evaluateGoals,
  type Figures,
  judge,
  median,
  type Report,
  ratios,
  renderMarkdown,
  renderText,
  summarize,
  TARGETS,
  type TargetRun,
  targetText,
} from './report.ts';

const segment = (connections: number, rps: number, more: Partial<Figures> = {}): Figures => ({
  connections,
  seconds: 3,
  rps,
  ok: rps * 3,
  errors: 0,
  p50Ms: 1,
  p99Ms: 2,
  cpuUsPerRequest: 1e6 / rps,
  ...more,
});

/**
 * Sides loaded in turn at one level, round by round in the order given, as runGroup loads them: the
 * i-th figures of each side in round i. A side with one more figure than the rounds has a closing one.
 */
function group(
  connections: number,
  sides: Record<string, [baseline: string | undefined, Partial<Figures>[]]>,
) {
  const runs = Object.entries(sides).map(
    ([key, [baseline]]): TargetRun => ({
      key,
      label: key,
      baselines: baseline ? [baseline] : [],
      segments: [],
      notes: [],
    }),
  );
  const rounds = Math.max(...Object.values(sides).map(([, figures]) => figures.length));
  let seq = 0;
  for (let round = 0; round < rounds; round += 1)
    for (const run of runs) {
      const figures = sides[run.key]?.[1][round];
      if (figures === undefined) continue;
      const closing = round === rounds - 1 && runs.some((other) => other.baselines.includes(run.key));
      run.segments.push({
        ...segment(connections, 1000),
        ...figures,
        round: round + 1,
        seq: seq++,
        ...(closing ? { closing } : {}),
      });
    }
  return runs;
}

const statusOf = (runs: TargetRun[], text: string) =>
  evaluateGoals(runs).find((goal) => goal.text === text)?.status;
const rps = (...values: number[]) => values.map((value) => ({ rps: value }));
const cpu = (...values: number[]) => values.map((value) => ({ cpuUsPerRequest: value }));

describe('median', () => {
  it('when the count is odd, then it is the middle value; when even, the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('when there is no value, then it is NaN (not measured), never 0', () => {
    expect(median([])).toBeNaN();
  });
});

describe('ratios: each subject segment against its baseline just before and just after it', () => {
  it('when the baseline drifts between rounds, then each round is taken to the mean of its two neighbours', () => {
    const [bare, service] = group(16, {
      bare: [undefined, rps(100, 80, 40)],
      service: ['bare', rps(90, 60)],
    });
    expect(ratios(service?.segments ?? [], bare?.segments ?? [], 16, 'req/s')).toEqual([1, 1]);
  });

  it('when the baseline comes back between subjects (plain, A, plain, B, plain), then each is bracketed by the plain around it', () => {
    const runs: TargetRun[] = ['plain', 'a', 'b'].map((key) => ({
      key,
      label: key,
      baselines: [],
      segments: [],
      notes: [],
    }));
    const order: Array<[number, number]> = [
      [0, 100],
      [1, 150],
      [0, 200],
      [2, 300],
      [0, 100],
    ];
    order.forEach(([index, us], seq) => {
      runs[index]?.segments.push(segment(4, 1000, { cpuUsPerRequest: us, seq }));
    });
    const [plain, a, b] = runs.map((run) => run.segments);
    expect(ratios(a ?? [], plain ?? [], 4, 'us/req')).toEqual([1]);
    expect(ratios(b ?? [], plain ?? [], 4, 'us/req')).toEqual([2]);
  });

  it('when a subject is also a baseline, then its closing segment is no round of its own', () => {
    const runs = group(16, {
      koa: [undefined, rps(100, 100)],
      memory: ['koa', rps(100, 300)],
      jwt: ['memory', rps(100)],
    });
    expect(ratios(runs[1]?.segments ?? [], runs[0]?.segments ?? [], 16, 'req/s')).toEqual([1]);
  });

  it('when no baseline follows, then the one before stands alone; with none before, the round gives nothing', () => {
    const before = [segment(16, 100, { seq: 1 })];
    expect(ratios([segment(16, 50, { seq: 2 })], before, 16, 'req/s')).toEqual([0.5]);
    expect(ratios([segment(16, 50, { seq: 0 })], before, 16, 'req/s')).toEqual([]);
  });

  it('CPU/req is the baseline over the subject (above 1: cheaper); us/req, p50 and p99 the subject over the baseline', () => {
    const [koa, memory] = group(16, { koa: [undefined, cpu(50, 50)], memory: ['koa', cpu(100)] });
    expect(ratios(memory?.segments ?? [], koa?.segments ?? [], 16, 'CPU/req')).toEqual([0.5]);
    expect(ratios(memory?.segments ?? [], koa?.segments ?? [], 16, 'us/req')).toEqual([2]);
  });
});

describe('judge: a verdict from the spread of the rounds', () => {
  it('when every round is on the right side, then PASS; every round on the wrong side, FAIL; both sides, UNDECIDED', () => {
    expect(judge([0.81, 0.9, 1.2], '>=', 0.8)).toBe('PASS');
    expect(judge([0.5, 0.79, 0.6], '>=', 0.8)).toBe('FAIL');
    expect(judge([1.1, 1.2], '<=', 1.2)).toBe('PASS');
    expect(judge([1.19, 1.21], '<=', 1.2)).toBe('UNDECIDED');
  });

  it('when the median is on the right side but one round is not, then UNDECIDED, not PASS', () => {
    expect(judge([0.78, 0.9, 0.95], '>=', 0.8)).toBe('UNDECIDED');
  });

  it('when no round was measured, or one is NaN, then NOT MEASURED', () => {
    expect(judge([], '>=', 0.8)).toBe('NOT MEASURED');
    expect(judge([0.9, Number.NaN], '>=', 0.8)).toBe('NOT MEASURED');
  });
});

describe('summarize', () => {
  it('takes the median of rates, latencies and CPU, adds up answers and errors, and keeps the highest peak RSS', () => {
    const level = summarize([
      segment(64, 100, { errors: 1, peakRssBytes: 100, p99Ms: 9 }),
      segment(64, 300, { errors: 2, peakRssBytes: 300, p99Ms: 1 }),
      segment(64, 200, { peakRssBytes: 200, p99Ms: 5 }),
    ]);
    expect(level).toMatchObject({ rps: 200, ok: 1800, errors: 3, peakRssBytes: 300, p99Ms: 5, seconds: 9 });
  });
});

describe('evaluateGoals', () => {
  it('when nothing ran, then every target of the list is a row, NOT MEASURED, never PASS', () => {
    const goals = evaluateGoals([]);
    expect(goals.map((goal) => goal.text)).toEqual(TARGETS.map((target) => targetText(target)));
    expect(new Set(goals.map((goal) => goal.status))).toEqual(new Set(['NOT MEASURED']));
  });

  it('the targets of issue 20 are rows: memory vs koa at c16/c64, the service vs node:http + kysely and vs node:http + PGlite', () => {
    expect(TARGETS.map((target) => targetText(target))).toEqual(
      expect.arrayContaining([
        'memory vs koa c16: CPU/req >= 0.8x',
        'memory vs koa c64: CPU/req >= 0.8x',
        'postgres vs kysely c1: p50 <= 1.2x',
        'postgres vs kysely c16: req/s >= 1.2x',
        'postgres vs kysely c64: req/s >= 2x',
        'embedded vs pglite c1: req/s >= 0.8x',
        'embedded vs pglite c16: CPU/req >= 0.8x',
        'postgres c64: peak RSS <= 150 MB',
        'image c64: peak RSS <= 150 MB',
        'list-10m vs list-10k c64: req/s >= 0.9x',
        'webhook-on vs webhook-off c64: req/s >= 0.5x',
        'jwt-es256 vs memory c16: CPU/req >= 0.9x',
      ]),
    );
  });

  it('memory vs koa at c16: when req/s and CPU per request disagree, then CPU per request decides', () => {
    const text = 'memory vs koa c16: CPU/req >= 0.8x';
    const cheaper = group(16, {
      koa: [undefined, [...cpu(50, 50, 50), { cpuUsPerRequest: 50 }]],
      memory: ['koa', [1, 2, 3].map(() => ({ cpuUsPerRequest: 55, rps: 300 }))],
    });
    expect(statusOf(cheaper, text)).toBe('PASS');
    const dearer = group(16, { koa: [undefined, cpu(50, 50, 50, 50)], memory: ['koa', cpu(70, 65, 55)] });
    expect(statusOf(dearer, text)).toBe('UNDECIDED');
    const measured = evaluateGoals(dearer).find((goal) => goal.text === text)?.measured;
    expect(measured).toMatch(
      /^median 0\.77x \(3 rounds: 0\.71x to 0\.91x\); req\/s 1\.00x, p50 1\.00x; 65 vs 50 us\/req$/,
    );
  });

  it('the service on PostgreSQL against node:http + kysely: c1 on p50, c16 and c64 on req/s whatever CPU says', () => {
    const c1 = group(1, {
      kysely: [undefined, [{ p50Ms: 1 }, { p50Ms: 1 }, { p50Ms: 1 }]],
      postgres: ['kysely', [{ p50Ms: 1.15 }, { p50Ms: 1.3 }]],
    });
    expect(statusOf(c1, 'postgres vs kysely c1: p50 <= 1.2x')).toBe('UNDECIDED');
    const c64 = group(64, {
      kysely: [undefined, rps(5000, 5000, 5000)],
      postgres: ['kysely', [1, 2].map(() => ({ rps: 11_000, cpuUsPerRequest: 1e6 }))],
    });
    expect(statusOf(c64, 'postgres vs kysely c64: req/s >= 2x')).toBe('PASS');
    expect(statusOf(c64, 'postgres vs kysely c16: req/s >= 1.2x')).toBe('NOT MEASURED');
  });

  it('the embedded service against node:http + PGlite: c1 on req/s, c16 on CPU per request', () => {
    const c1 = group(1, {
      pglite: [undefined, rps(2000, 2000, 2000)],
      embedded: ['pglite', [1, 2].map(() => ({ rps: 1500, cpuUsPerRequest: 1 }))],
    });
    expect(statusOf(c1, 'embedded vs pglite c1: req/s >= 0.8x')).toBe('FAIL');
    const c16 = group(16, {
      pglite: [undefined, cpu(100, 100, 100)],
      embedded: ['pglite', [1, 2].map(() => ({ cpuUsPerRequest: 110, rps: 1 }))],
    });
    expect(statusOf(c16, 'embedded vs pglite c16: CPU/req >= 0.8x')).toBe('PASS');
  });

  it('peak RSS: judged round by round against 150 MB, the service and its image apart; a side that failed says why', () => {
    const mb = (...values: number[]) => values.map((value) => ({ peakRssBytes: value * 2 ** 20 }));
    const runs = group(64, { postgres: [undefined, mb(120, 149, 130)], image: ['postgres', mb(140, 151)] });
    expect(statusOf(runs, 'postgres c64: peak RSS <= 150 MB')).toBe('PASS');
    expect(statusOf(runs, 'image c64: peak RSS <= 150 MB')).toBe('UNDECIDED');
    const failed: TargetRun[] = [
      {
        key: 'image',
        label: 'image',
        baselines: [],
        segments: [],
        notes: [],
        error: 'no Docker engine answers\nmore',
      },
    ];
    expect(evaluateGoals(failed).find((goal) => goal.text === 'image c64: peak RSS <= 150 MB')).toMatchObject(
      {
        status: 'NOT MEASURED',
        measured: 'not measured: no Docker engine answers',
      },
    );
  });

  it('growth: each large table against the same kind of request on 10,000 plants, never another kind', () => {
    const runs = group(64, {
      'list-10k': [undefined, rps(3000, 3000, 3000)],
      'get-10k': [undefined, rps(8000, 8000, 8000)],
      'list-10m': ['list-10k', rps(2900, 2800)],
    });
    expect(statusOf(runs, 'list-10m vs list-10k c64: req/s >= 0.9x')).toBe('PASS');
    expect(statusOf(runs, 'get-10m vs get-10k c64: req/s >= 0.9x')).toBe('NOT MEASURED');
  });

  it('the operations of issue 32: PUT within 1.3x a create and a 304 within a 200 by CPU per request at c16, whatever req/s says', () => {
    const runs = group(16, {
      create: [undefined, cpu(100, 100, 100, 100)],
      put: ['create', [125, 128, 110].map((us) => ({ cpuUsPerRequest: us, rps: 1 }))],
      'get-200': [undefined, cpu(50, 50, 50, 50)],
      'get-304': ['get-200', [48, 52, 49].map((us) => ({ cpuUsPerRequest: us, rps: 1e6 }))],
    });
    expect(statusOf(runs, 'put vs create c16: us/req <= 1.3x')).toBe('PASS');
    expect(statusOf(runs, 'get-304 vs get-200 c16: us/req <= 1x')).toBe('UNDECIDED');
    const dearer = group(16, { create: [undefined, cpu(100, 100, 100)], put: ['create', cpu(140, 135)] });
    expect(statusOf(dearer, 'put vs create c16: us/req <= 1.3x')).toBe('FAIL');
  });

  it('a page by a rare tag on 10,000,000 plants against the same page on 10,000, on req/s at c64', () => {
    const runs = group(64, {
      'tag-10k': [undefined, rps(1000, 1000, 1000, 1000)],
      'tag-10m': ['tag-10k', rps(950, 920, 910)],
    });
    expect(statusOf(runs, 'tag-10m vs tag-10k c64: req/s >= 0.9x')).toBe('PASS');
    const slower = group(64, {
      'tag-10k': [undefined, rps(1000, 1000, 1000)],
      'tag-10m': ['tag-10k', rps(700, 880)],
    });
    expect(statusOf(slower, 'tag-10m vs tag-10k c64: req/s >= 0.9x')).toBe('FAIL');
  });

  it('hostile bodies: each shape PASS within 3x the plain body in CPU per request, FAIL beyond it in every round', () => {
    const runs: TargetRun[] = [
      { key: 'plain', label: 'plain', baselines: [], segments: [], notes: [] },
      { key: 'hostile-deep', label: 'deep nesting', baselines: ['plain'], segments: [], notes: [] },
      { key: 'hostile-many', label: 'many members', baselines: ['plain'], segments: [], notes: [] },
    ];
    const order: Array<[number, number]> = [
      [0, 100],
      [1, 250],
      [0, 100],
      [2, 350],
      [0, 100],
    ];
    order.forEach(([index, us], seq) => {
      runs[index]?.segments.push(segment(4, 1000, { cpuUsPerRequest: us, seq }));
    });
    const hostile = evaluateGoals(runs).filter((goal) => goal.text.startsWith('hostile body'));
    expect(hostile.map((goal) => [goal.text, goal.status])).toEqual([
      ['hostile body, deep nesting: CPU/req <= 3x a plain body of the same size', 'PASS'],
      ['hostile body, many members: CPU/req <= 3x a plain body of the same size', 'FAIL'],
    ]);
  });

  it('webhook deliveries: PASS when every plant created was received, FAIL when some are missing', () => {
    const run = (received: number): TargetRun[] => [
      {
        key: 'webhook-on',
        label: 'on',
        baselines: [],
        segments: [],
        notes: [],
        deliveries: { expected: 10, received, lagSeconds: [0.5, 1.25], limitSeconds: 30 },
      },
    ];
    const text = 'webhook deliveries: every plant created received within 30 s of its segment';
    expect(evaluateGoals(run(10)).find((goal) => goal.text === text)).toMatchObject({
      status: 'PASS',
      measured: '10 of 10; lag after a segment at most 1.25 s',
    });
    expect(statusOf(run(9), text)).toBe('FAIL');
  });
});

describe('tracing', () => {
  const exported = (exports: number, creates = 1000): TargetRun[] => [
    {
      key: 'trace-10-memory',
      label: '10%',
      baselines: ['trace-off-memory'],
      segments: [],
      notes: [],
      traces: {
        exports,
        bytes: 40 * exports * 100,
        spans: 200 * exports,
        serverSpans: 100 * exports,
        creates,
        dropped: 3,
      },
    },
  ];
  const text = 'trace-10-memory exports: its spans reached the OTLP collector';

  it('traces at 10% are judged on CPU per request against tracing off on the same storage, at c16', () => {
    expect(TARGETS.map((target) => targetText(target))).toEqual(
      expect.arrayContaining([
        'trace-10-memory vs trace-off-memory c16: CPU/req >= 0.85x',
        'trace-10-postgres vs trace-off-postgres c16: CPU/req >= 0.85x',
      ]),
    );
    expect(TARGETS.some((target) => target.subject.startsWith('trace-100-'))).toBe(false);
    const runs = group(16, {
      'trace-off-memory': [undefined, cpu(100, 100, 100, 100)],
      'trace-10-memory': ['trace-off-memory', cpu(110, 112, 115)],
    });
    expect(statusOf(runs, 'trace-10-memory vs trace-off-memory c16: CPU/req >= 0.85x')).toBe('PASS');
  });

  it('when a traced side exported spans, then PASS with spans and bytes per create; with no export at all, FAIL', () => {
    expect(evaluateGoals(exported(1)).find((goal) => goal.text === text)).toMatchObject({
      status: 'PASS',
      measured:
        '200 spans in 1 exports for 1,000 creates, 3 dropped; a create: 0.10 server spans, 0.20 spans, 4 bytes',
    });
    expect(statusOf(exported(0), text)).toBe('FAIL');
    expect(statusOf(exported(0, 0), text)).toBe('NOT MEASURED');
  });
});

describe('the report', () => {
  const note = 'CPU per request counts all the CPU used since the previous load';
  const runs = group(16, {
    koa: [undefined, cpu(50, 50, 50, 50)],
    'json-server': [undefined, rps(250, 250, 250, 250)],
    memory: ['koa', cpu(55, 60, 62)],
  }).map((run) => ({
    ...run,
    ...(run.key === 'memory' ? { baselines: ['koa', 'json-server'] } : {}),
    ...(run.key === 'json-server' ? {} : { notes: [note] }),
  }));
  runs.push({
    key: 'embedded',
    label: 'service, embedded',
    baselines: [],
    segments: [],
    notes: [],
    error: 'exited before it was ready',
  });
  const report: Report = {
    machine: {
      cpuModel: 'AMD EPYC',
      cores: 2,
      loadAverageAtStart: [1.5, 1, 0.5],
      busyPercent: 3,
      details: { Node: 'v24.21.0' },
    },
    settings: { durationSeconds: 10, rounds: 3, connections: [16] },
    runs,
    wallSeconds: 100,
    loadAverageAtEnd: [2, 1.25, 0.75],
  };

  it('the text starts with the CPU model, the cores and the load average at the start and the end', () => {
    const text = renderText(report);
    expect(text.split('\n')[0]).toBe(
      'AMD EPYC, 2 cores; load average 1.50 1.00 0.50 at the start, 2.00 1.25 0.75 at the end; 3% busy in the second before',
    );
    expect(text).toMatch(/memory \/ koa +c16 +1\.00x \(1\.00-1\.00\) +0\.83x \(0\.81-0\.91\)/);
    expect(text).toMatch(/PASS +memory vs koa c16: CPU\/req >= 0\.8x +CPU\/req +median 0\.83x/);
    expect(text).toContain('\nFAILED service, embedded: exited before it was ready\n');
  });

  const markdown = renderMarkdown(report);
  /** The rows of the Markdown table under a heading. */
  const tableUnder = (heading: string) =>
    (markdown.split(`\n${heading}\n`)[1] ?? '')
      .split('\n\n')
      .find((block) => block.startsWith('|'))
      ?.split('\n')
      .slice(2);

  it('BENCHMARKS.md shows the picture of the targets first, before the machine and the tables', () => {
    const image = `![Each target's rounds against its target line, coloured by its verdict](${CHART_PATH})`;
    expect(CHART_PATH).toBe('bench/results/latest.svg');
    expect(markdown.indexOf(`## At a glance\n\n${image}\n`)).toBeGreaterThan(0);
    expect(markdown.indexOf(image)).toBeLessThan(markdown.indexOf('## Machine'));
  });

  it('BENCHMARKS.md holds the machine, and the targets with their verdicts counted', () => {
    expect(markdown).toContain('| Node | v24.21.0 |');
    expect(markdown).toContain(`\n1 PASS, ${TARGETS.length - 1} NOT MEASURED. PASS when every round`);
    expect(tableUnder('## Targets')).toContain(
      '| PASS | memory vs koa c16: CPU/req >= 0.8x | CPU/req | median 0.83x (3 rounds: 0.81x to 0.91x); req/s 1.00x, p50 1.00x; 60 vs 50 us/req |',
    );
  });

  it('BENCHMARKS.md gives one row per side and level, its ratios to the first baseline and, folded in, req/s to the others', () => {
    expect(tableUnder('## Results')).toStrictEqual([
      '| koa | c16 | 1,000 | 1.00 | 2.00 | 0 | - | 50 | - |  |  |  |  |  |',
      '| json-server | c16 | 250 | 1.00 | 2.00 | 0 | - | 1,000 | - |  |  |  |  |  |',
      '| memory | c16 | 1,000 | 1.00 | 2.00 | 0 | - | 60 | - | koa | 1.00x | 0.83x | 1.00x | json-server 4.00x |',
    ]);
    expect(markdown).not.toContain('## Ratios');
  });

  it('BENCHMARKS.md lists the failures and each note once with every side that gave it, and links PROFILE.md', () => {
    expect(markdown).toContain(
      `\n## Notes\n\n- FAILED service, embedded: exited before it was ready\n- koa; memory: ${note}\n`,
    );
    expect(markdown).toContain('[bench/PROFILE.md](bench/PROFILE.md)');
    expect(markdown.endsWith(`${note}\n`)).toBe(true);
  });
});
