// Turns a run's figures into ratios, the issue's targets with PASS/FAIL, a table for the terminal
// and BENCHMARKS.md.
import {
  type BenchReport,
  COMPARISONS,
  type Comparison,
  type Goal,
  type GoalStatus,
  type HostileBodiesFigures,
  type LevelFigures,
  PRIMARY_BASELINE,
  type ReadFigures,
  TARGET_LABELS,
  type TargetKey,
  type TargetRun,
  type WebhookFigures,
} from './results.ts';

function level(runs: readonly TargetRun[], key: TargetKey, connections: number): LevelFigures | undefined {
  return runs.find((run) => run.key === key)?.levels.find((figures) => figures.connections === connections);
}

/**
 * One run per target from several rounds: for each level, the round with the most req/s. Others'
 * work on a shared machine only ever slows a round down, so the best round is the least disturbed.
 */
export function bestOfRounds(rounds: readonly (readonly TargetRun[])[]): TargetRun[] {
  if (rounds.length === 1) return [...(rounds[0] ?? [])];
  const merged = new Map<TargetKey, TargetRun>();
  for (const run of rounds.flat()) {
    const kept = merged.get(run.key);
    if (!kept) {
      merged.set(run.key, { ...run, levels: [...run.levels], notes: [...run.notes] });
      continue;
    }
    for (const figures of run.levels) {
      const index = kept.levels.findIndex((known) => known.connections === figures.connections);
      if (index === -1) kept.levels.push(figures);
      else if (figures.requestsPerSecond > (kept.levels[index]?.requestsPerSecond ?? 0))
        kept.levels[index] = figures;
    }
    if (run.hostile !== undefined) kept.hostile = mergeHostile(kept.hostile, run.hostile);
    if (run.reads !== undefined) kept.reads = mergeReads(kept.reads, run.reads);
    if (run.webhook !== undefined) kept.webhook = mergeWebhook(kept.webhook, run.webhook);
    for (const note of run.notes) if (!kept.notes.includes(note)) kept.notes.push(note);
    if (run.error !== undefined)
      kept.error = kept.error === undefined ? run.error : `${kept.error}\n${run.error}`;
  }
  for (const run of merged.values()) run.levels.sort((a, b) => a.connections - b.connections);
  return [...merged.values()];
}

/** Hostile bodies measured in several rounds of the whole bench: every round's figures, together. */
function mergeHostile(
  kept: HostileBodiesFigures | undefined,
  more: HostileBodiesFigures,
): HostileBodiesFigures {
  if (kept === undefined) return more;
  return {
    ...kept,
    plainCpuUsPerRequest: [...kept.plainCpuUsPerRequest, ...more.plainCpuUsPerRequest],
    shapes: kept.shapes.map((shape) => {
      const other = more.shapes.find((candidate) => candidate.key === shape.key);
      return other === undefined
        ? shape
        : {
            ...shape,
            cpuUsPerRequest: [...shape.cpuUsPerRequest, ...other.cpuUsPerRequest],
            ratios: [...shape.ratios, ...other.ratios],
          };
    }),
  };
}

/** Reads measured in several rounds of the whole bench: every round's figures, together. */
function mergeReads(kept: ReadFigures | undefined, more: ReadFigures): ReadFigures {
  if (kept === undefined) return more;
  return {
    ...kept,
    bareCpuUsPerRequest: [...kept.bareCpuUsPerRequest, ...more.bareCpuUsPerRequest],
    serviceCpuUsPerRequest: [...kept.serviceCpuUsPerRequest, ...more.serviceCpuUsPerRequest],
    bareRequestsPerSecond: [...kept.bareRequestsPerSecond, ...more.bareRequestsPerSecond],
    serviceRequestsPerSecond: [...kept.serviceRequestsPerSecond, ...more.serviceRequestsPerSecond],
    cpuRatios: [...kept.cpuRatios, ...more.cpuRatios],
    rpsRatios: [...kept.rpsRatios, ...more.rpsRatios],
  };
}

/**
 * The webhook measured in several rounds of the whole bench: every round's figures, together; the
 * deliveries of every pass (each with a receiver and a database of its own) added up.
 */
function mergeWebhook(kept: WebhookFigures | undefined, more: WebhookFigures): WebhookFigures {
  if (kept === undefined) return more;
  return {
    ...kept,
    offCpuUsPerRequest: [...kept.offCpuUsPerRequest, ...more.offCpuUsPerRequest],
    onCpuUsPerRequest: [...kept.onCpuUsPerRequest, ...more.onCpuUsPerRequest],
    onCpuUsPerRequestDrained: [...kept.onCpuUsPerRequestDrained, ...more.onCpuUsPerRequestDrained],
    offRequestsPerSecond: [...kept.offRequestsPerSecond, ...more.offRequestsPerSecond],
    onRequestsPerSecond: [...kept.onRequestsPerSecond, ...more.onRequestsPerSecond],
    rpsRatios: [...kept.rpsRatios, ...more.rpsRatios],
    cpuRatios: [...kept.cpuRatios, ...more.cpuRatios],
    created: [...kept.created, ...more.created],
    lagSeconds: [...kept.lagSeconds, ...more.lagSeconds],
    receivedRequests: kept.receivedRequests + more.receivedRequests,
    receivedDistinct: kept.receivedDistinct + more.receivedDistinct,
    expectedDeliveries: kept.expectedDeliveries + more.expectedDeliveries,
    shortfall: kept.shortfall + more.shortfall,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** DESIGN.md: no body makes a request cost more than a few times a plain body of the same size. */
export const HOSTILE_MAX_RATIO = 3;

/**
 * PASS when every round is within the target, FAIL when none is, UNDECIDED when the rounds straddle
 * it. `at most` (the default): a ratio is within when it is <= the target; `at least`: when >= it.
 */
export function judgeRatios(
  ratios: readonly number[],
  target = HOSTILE_MAX_RATIO,
  bound: 'at most' | 'at least' = 'at most',
): GoalStatus {
  if (ratios.length === 0 || ratios.some(Number.isNaN)) return 'NOT MEASURED';
  const within = (ratio: number) => (bound === 'at most' ? ratio <= target : ratio >= target);
  if (ratios.every(within)) return 'PASS';
  if (!ratios.some(within)) return 'FAIL';
  return 'UNDECIDED';
}

/** The issue's figure for the webhook: with it on, creates at c64 keep at least 0.8x their rate with it off. */
export const WEBHOOK_MIN_RPS_RATIO = 0.8;

const range = (ratios: readonly number[]) =>
  `median ${format.ratio(median(ratios))} (rounds ${format.ratio(Math.min(...ratios))} to ${format.ratio(Math.max(...ratios))}`;

/**
 * Each round's deliveries per second from the start of its segment until the last one arrived: below
 * the rate of creates, the queue grew during the load and was emptied after it.
 */
function deliveryRates(figures: WebhookFigures): number[] {
  return figures.created.flatMap((created, index) => {
    const lag = figures.lagSeconds[index];
    return lag === undefined || !Number.isFinite(lag) ? [] : [created / (figures.segmentSeconds + lag)];
  });
}

/**
 * The webhook on vs off: req/s judged against WEBHOOK_MIN_RPS_RATIO round by round; CPU per request
 * (delivering included) reported; every delivery received within the wait, or FAIL.
 */
function webhookGoals(runs: readonly TargetRun[]): Goal[] {
  const figures = runs.find((run) => run.key === 'webhook')?.webhook;
  if (figures === undefined) return [];
  const c = `c${figures.connections}`;
  const measuredAt = (ratios: readonly number[]) => ratios.length > 0 && !ratios.some(Number.isNaN);
  const lags = figures.lagSeconds.filter(Number.isFinite);
  return [
    {
      goal: `webhook on >= ${WEBHOOK_MIN_RPS_RATIO}x off at ${c}: POST /plants req/s on PostgreSQL`,
      measured: measuredAt(figures.rpsRatios)
        ? `${range(figures.rpsRatios)}; ${format.rps(median(figures.onRequestsPerSecond))} vs ` +
          `${format.rps(median(figures.offRequestsPerSecond))} req/s)`
        : 'not measured in this run',
      status: judgeRatios(figures.rpsRatios, WEBHOOK_MIN_RPS_RATIO, 'at least'),
    },
    measuredAt(figures.cpuRatios)
      ? {
          goal: `webhook on vs off at ${c}: service CPU/request, delivering included (reported, no target)`,
          measured:
            `${range(figures.cpuRatios)}; ${format.micros(median(figures.onCpuUsPerRequestDrained))} vs ` +
            `${format.micros(median(figures.offCpuUsPerRequest))} us/req, ` +
            `${format.micros(median(figures.onCpuUsPerRequest))} during the load alone)`,
          status: 'INFO',
        }
      : {
          goal: `webhook on vs off at ${c}: service CPU/request, delivering included (reported, no target)`,
          measured: 'not measured in this run',
          status: 'NOT MEASURED',
        },
    {
      goal: `webhook deliveries keep up: every plant created delivered within ${figures.drainLimitSeconds} s of its segment`,
      measured:
        `${figures.receivedDistinct.toLocaleString('en-US')} of ${figures.expectedDeliveries.toLocaleString('en-US')} received` +
        (figures.receivedRequests > figures.receivedDistinct
          ? ` (${(figures.receivedRequests - figures.receivedDistinct).toLocaleString('en-US')} more than once)`
          : '') +
        (lags.length > 0
          ? `; lag after a segment median ${format.seconds(median(lags))} s, max ${format.seconds(Math.max(...lags))} s; ` +
            `${format.rps(median(deliveryRates(figures)))} deliveries/s over segment and lag, for ` +
            `${format.rps(median(figures.onRequestsPerSecond))} creates/s`
          : ''),
      status:
        figures.expectedDeliveries === 0
          ? 'NOT MEASURED'
          : figures.shortfall > 0 || figures.receivedDistinct < figures.expectedDeliveries
            ? 'FAIL'
            : 'PASS',
    },
  ];
}

function hostileGoals(runs: readonly TargetRun[]): Goal[] {
  const figures = runs.find((run) => run.key === 'hostile')?.hostile;
  if (figures === undefined) return [];
  return figures.shapes.map((shape) => ({
    goal: `hostile body, ${shape.label}: CPU/request <= ${HOSTILE_MAX_RATIO}x a plain body of the same size`,
    measured:
      `median ${format.ratio(median(shape.ratios))} (rounds ${format.ratio(Math.min(...shape.ratios))} to ` +
      `${format.ratio(Math.max(...shape.ratios))}; ${format.micros(median(shape.cpuUsPerRequest))} vs ` +
      `${format.micros(median(figures.plainCpuUsPerRequest))} us/req); answered ${shape.status}`,
    status: judgeRatios(shape.ratios),
  }));
}

/** The reads on PostgreSQL, in the order they are reported. */
const READ_KEYS = ['pg-get', 'pg-list'] as const;

/**
 * The reads on PostgreSQL against the bare node:http + pg server: the issue gives no figure to
 * reach, so they are reported (INFO) with their median ratio and every round's range; NOT MEASURED
 * when no round was.
 */
function readGoals(runs: readonly TargetRun[]): Goal[] {
  return READ_KEYS.flatMap((key) => {
    const figures = runs.find((run) => run.key === key)?.reads;
    if (figures === undefined) return [];
    const name = `PostgreSQL ${figures.request} c${figures.connections}`;
    const measured = (ratios: readonly number[], service: string, bare: string) =>
      ratios.length === 0 || ratios.some(Number.isNaN)
        ? { measured: 'not measured in this run', status: 'NOT MEASURED' as const }
        : {
            measured:
              `median ${format.ratio(median(ratios))} (rounds ${format.ratio(Math.min(...ratios))} to ` +
              `${format.ratio(Math.max(...ratios))}; ${service} vs ${bare})`,
            status: 'INFO' as const,
          };
    return [
      {
        goal: `${name}: CPU/request vs node:http + pg (reported, no target)`,
        ...measured(
          figures.cpuRatios,
          `${format.micros(median(figures.serviceCpuUsPerRequest))} us/req`,
          `${format.micros(median(figures.bareCpuUsPerRequest))} us/req`,
        ),
      },
      {
        goal: `${name}: req/s vs node:http + pg (reported, no target)`,
        ...measured(
          figures.rpsRatios,
          `${format.rps(median(figures.serviceRequestsPerSecond))} req/s`,
          `${format.rps(median(figures.bareRequestsPerSecond))} req/s`,
        ),
      },
    ];
  });
}

export function compare(runs: readonly TargetRun[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const [subject, baseline] of COMPARISONS) {
    const ratios = (runs.find((run) => run.key === subject)?.levels ?? []).flatMap((figures) => {
      const base = level(runs, baseline, figures.connections);
      if (!base) return [];
      return [
        {
          connections: figures.connections,
          requestsPerSecond: figures.requestsPerSecond / base.requestsPerSecond,
          p99: figures.p99Ms / base.p99Ms,
        },
      ];
    });
    if (ratios.length > 0) comparisons.push({ subject, baseline, ratios });
  }
  return comparisons;
}

const MB = 1024 * 1024;

export function evaluateGoals(runs: readonly TargetRun[], connections: readonly number[]): Goal[] {
  const goals: Goal[] = [];
  const ratio = (subject: TargetKey, baseline: TargetKey, c: number) => {
    const a = level(runs, subject, c);
    const b = level(runs, baseline, c);
    return a && b ? { rps: a.requestsPerSecond / b.requestsPerSecond, p99: a.p99Ms / b.p99Ms } : undefined;
  };
  const judge = (goal: string, value: number | undefined, pass: (value: number) => boolean, show: string) =>
    goals.push(
      value === undefined || Number.isNaN(value)
        ? { goal, measured: 'not measured in this run', status: 'NOT MEASURED' }
        : { goal, measured: show.replace('%', format.ratio(value)), status: pass(value) ? 'PASS' : 'FAIL' },
    );

  for (const c of [16, 64]) {
    judge(
      `PostgreSQL c${c}: req/s >= 1.0x node:http + pg`,
      ratio('postgres', 'bare-pg', c)?.rps,
      (v) => v >= 1,
      `%`,
    );
    judge(
      `PostgreSQL c${c}: p99 <= 1.3x node:http + pg`,
      ratio('postgres', 'bare-pg', c)?.p99,
      (v) => v <= 1.3,
      `%`,
    );
  }
  judge(
    'group commit c64: req/s >= 1.5x node:http + pg',
    ratio('postgres', 'bare-pg', 64)?.rps,
    (v) => v >= 1.5,
    '%',
  );
  // Alone, a create must not wait for company: its p50 with group commit is held to the same
  // service without it, in the same run (10% for the noise of a shared machine).
  const alone = level(runs, 'postgres', 1);
  const aloneWithout = level(runs, 'postgres-single', 1);
  judge(
    'group commit c1: p50 <= 1.1x GROUP_COMMIT=off (no added latency without concurrency)',
    alone && aloneWithout ? alone.p50Ms / aloneWithout.p50Ms : undefined,
    (v) => v <= 1.1,
    alone && aloneWithout ? `% (p50 ${format.ms(alone.p50Ms)} vs ${format.ms(aloneWithout.p50Ms)} ms)` : '%',
  );
  for (const c of [16, 64]) {
    const gain = ratio('postgres', 'postgres-single', c)?.rps;
    if (gain !== undefined) {
      goals.push({
        goal: `group commit c${c}: req/s vs GROUP_COMMIT=off (reported, no target)`,
        measured: format.ratio(gain),
        status: 'INFO',
      });
    }
  }
  for (const c of connections) {
    judge(`memory c${c}: req/s >= 0.85x koa minimal`, ratio('memory', 'koa', c)?.rps, (v) => v >= 0.85, '%');
  }
  for (const c of connections) {
    const memoryVsBare = ratio('memory', 'bare', c)?.rps;
    if (memoryVsBare !== undefined) {
      goals.push({
        goal: `memory c${c}: req/s vs bare node:http (reported, no target)`,
        measured: format.ratio(memoryVsBare),
        status: 'INFO',
      });
    }
  }
  for (const c of connections) {
    const json = level(runs, 'json-server', c);
    judge(
      `embedded c${c}: req/s >= 10x json-server`,
      ratio('embedded', 'json-server', c)?.rps,
      (v) => v >= 10,
      json ? `% (json-server ${format.rps(json.requestsPerSecond)} creates/s)` : '%',
    );
  }
  judge(
    'PostgreSQL with 1,000,000 plants stored, c64: req/s >= 0.9x the empty table',
    ratio('growth', 'postgres', 64)?.rps,
    (v) => v >= 0.9,
    '%',
  );
  const rss = level(runs, 'postgres', 64)?.peakRssBytes;
  judge(
    'PostgreSQL c64: server peak RSS <= 150 MB',
    rss === undefined ? undefined : rss / MB,
    (v) => v <= 150,
    `${rss === undefined ? '' : format.mb(rss)}`,
  );
  for (const key of ['jwt-es256', 'jwt-rs256'] as const) {
    judge(
      `${key === 'jwt-es256' ? 'ES256' : 'RS256'} JWT c16: req/s >= 0.9x a static token`,
      ratio(key, 'memory', 16)?.rps,
      (v) => v >= 0.9,
      '%',
    );
  }
  goals.push(...readGoals(runs));
  goals.push(...webhookGoals(runs));
  goals.push(...hostileGoals(runs));
  return goals;
}

export const format = {
  rps: (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-'),
  ms: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value)
      ? '-'
      : value < 1
        ? value.toFixed(3)
        : value < 10
          ? value.toFixed(2)
          : value.toFixed(1),
  mb: (bytes: number | undefined) => (bytes === undefined ? '-' : `${Math.round(bytes / MB)} MB`),
  percent: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : `${Math.round(value)}%`,
  micros: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : String(Math.round(value)),
  ratio: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`,
  seconds: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(2),
};

/** Server CPU time per answered request, in microseconds: steadier than req/s when others share the machine. */
function cpuPerRequestUs(figures: LevelFigures): number | undefined {
  if (figures.serverCpuPercent === undefined || figures.requestsPerSecond === 0) return undefined;
  return ((figures.serverCpuPercent / 100) * 1e6) / figures.requestsPerSecond;
}

const RESULT_HEADERS = [
  'target',
  'conns',
  'req/s',
  'p50 ms',
  'p99 ms',
  'errors',
  'peak RSS',
  'server CPU',
  'CPU us/req',
  'load gen CPU',
  'machine CPU',
  'baseline',
  'x req/s',
  'x p99',
];
// Right-aligned columns, for numbers.
const RESULT_RIGHT = [false, true, true, true, true, true, true, true, true, true, true, false, true, true];

function resultRows(report: BenchReport): string[][] {
  const rows: string[][] = [];
  for (const run of report.runs) {
    const baselineKey = PRIMARY_BASELINE[run.key];
    for (const figures of run.levels) {
      const base = baselineKey ? level(report.runs, baselineKey, figures.connections) : undefined;
      rows.push([
        run.label,
        `c${figures.connections}`,
        format.rps(figures.requestsPerSecond),
        format.ms(figures.p50Ms),
        format.ms(figures.p99Ms),
        String(figures.non2xx + figures.socketErrors),
        format.mb(figures.peakRssBytes),
        format.percent(figures.serverCpuPercent),
        format.micros(cpuPerRequestUs(figures)),
        format.percent(figures.loadGeneratorCpuPercent),
        format.percent(figures.machineCpuPercent),
        baselineKey ? baselineKey : '',
        base ? format.ratio(figures.requestsPerSecond / base.requestsPerSecond) : '',
        base ? format.ratio(figures.p99Ms / base.p99Ms) : '',
      ]);
    }
    if (run.error !== undefined) {
      rows.push([run.label, '-', 'FAILED', ...Array<string>(11).fill('')]);
    }
  }
  return rows;
}

function failures(report: BenchReport): string[] {
  return report.runs.flatMap((run) =>
    run.error === undefined ? [] : [`FAILED ${run.label}: ${run.error.split('\n')[0] ?? ''}`],
  );
}

function comparisonTable(report: BenchReport): { headers: string[]; rows: string[][]; right: boolean[] } {
  const connections = report.settings.connections;
  const headers = ['ratio', ...connections.map((c) => `req/s c${c}`), ...connections.map((c) => `p99 c${c}`)];
  const rows = report.comparisons.map((comparison) => {
    const at = (c: number) => comparison.ratios.find((ratio) => ratio.connections === c);
    return [
      `${TARGET_LABELS[comparison.subject]} / ${TARGET_LABELS[comparison.baseline]}`,
      ...connections.map((c) => format.ratio(at(c)?.requestsPerSecond)),
      ...connections.map((c) => format.ratio(at(c)?.p99)),
    ];
  });
  return { headers, rows, right: headers.map((_, index) => index > 0) };
}

function hostileTable(
  report: BenchReport,
): { headers: string[]; rows: string[][]; right: boolean[] } | undefined {
  const figures = report.runs.find((run) => run.key === 'hostile')?.hostile;
  if (figures === undefined) return undefined;
  const headers = ['body (all of the same size)', 'answer', 'CPU us/req', 'x plain', 'rounds', 'verdict'];
  const rows = [
    [figures.plainLabel, '200', format.micros(median(figures.plainCpuUsPerRequest)), '1.00x', '', ''],
    ...figures.shapes.map((shape) => [
      shape.label,
      String(shape.status),
      format.micros(median(shape.cpuUsPerRequest)),
      format.ratio(median(shape.ratios)),
      shape.ratios.map((ratio) => format.ratio(ratio)).join(' '),
      judgeRatios(shape.ratios),
    ]),
  ];
  return { headers, rows, right: [false, true, true, true, false, false] };
}

function readsTable(
  report: BenchReport,
): { headers: string[]; rows: string[][]; right: boolean[] } | undefined {
  const reads = READ_KEYS.flatMap((key) => {
    const figures = report.runs.find((run) => run.key === key)?.reads;
    return figures === undefined ? [] : [figures];
  });
  if (reads.length === 0) return undefined;
  const headers = [
    'read on PostgreSQL',
    'conns',
    'service us/req',
    'bare us/req',
    'x CPU/req',
    'service req/s',
    'bare req/s',
    'x req/s',
    'rounds (x CPU/req)',
  ];
  const rows = reads.map((figures) => [
    figures.request,
    `c${figures.connections}`,
    format.micros(median(figures.serviceCpuUsPerRequest)),
    format.micros(median(figures.bareCpuUsPerRequest)),
    format.ratio(median(figures.cpuRatios)),
    format.rps(median(figures.serviceRequestsPerSecond)),
    format.rps(median(figures.bareRequestsPerSecond)),
    format.ratio(median(figures.rpsRatios)),
    figures.cpuRatios.map((ratio) => format.ratio(ratio)).join(' '),
  ]);
  return { headers, rows, right: [false, true, true, true, true, true, true, true, false] };
}

function webhookTable(
  report: BenchReport,
): { headers: string[]; rows: string[][]; right: boolean[] } | undefined {
  const figures = report.runs.find((run) => run.key === 'webhook')?.webhook;
  if (figures === undefined) return undefined;
  const lags = figures.lagSeconds.filter(Number.isFinite);
  const headers = [
    `webhook, POST /plants c${figures.connections}`,
    'req/s',
    'CPU us/req',
    'delivering incl.',
    'x req/s',
    'x CPU/req',
    'rounds (x req/s)',
    'delivered',
    'lag s (max)',
    'verdict',
  ];
  const rows = [
    [
      'off',
      format.rps(median(figures.offRequestsPerSecond)),
      format.micros(median(figures.offCpuUsPerRequest)),
      '',
      '1.00x',
      '1.00x',
      '',
      '',
      '',
      '',
    ],
    [
      'on',
      format.rps(median(figures.onRequestsPerSecond)),
      format.micros(median(figures.onCpuUsPerRequest)),
      format.micros(median(figures.onCpuUsPerRequestDrained)),
      format.ratio(median(figures.rpsRatios)),
      format.ratio(median(figures.cpuRatios)),
      figures.rpsRatios.map((ratio) => format.ratio(ratio)).join(' '),
      `${figures.receivedDistinct.toLocaleString('en-US')} of ${figures.expectedDeliveries.toLocaleString('en-US')}`,
      lags.length === 0 ? '-' : `${format.seconds(median(lags))} (${format.seconds(Math.max(...lags))})`,
      judgeRatios(figures.rpsRatios, WEBHOOK_MIN_RPS_RATIO, 'at least'),
    ],
  ];
  return { headers, rows, right: [false, true, true, true, true, true, false, true, true, false] };
}

function textTable(headers: string[], rows: string[][], right: boolean[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        right[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function markdownTable(headers: string[], rows: string[][], right: boolean[]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), `|${right.map((r) => (r ? '---:' : '---')).join('|')}|`, ...rows.map(line)].join(
    '\n',
  );
}

export function renderText(report: BenchReport): string {
  const comparisons = comparisonTable(report);
  const reads = readsTable(report);
  const hostile = hostileTable(report);
  const webhook = webhookTable(report);
  const width = Math.max(...report.goals.map((goal) => goal.goal.length));
  return [
    textTable(RESULT_HEADERS, resultRows(report), RESULT_RIGHT),
    ...failures(report),
    '',
    textTable(comparisons.headers, comparisons.rows, comparisons.right),
    '',
    ...(reads ? [textTable(reads.headers, reads.rows, reads.right), ''] : []),
    ...(webhook ? [textTable(webhook.headers, webhook.rows, webhook.right), ''] : []),
    ...(hostile ? [textTable(hostile.headers, hostile.rows, hostile.right), ''] : []),
    ...report.goals.map((goal) => `${goal.status.padEnd(12)} ${goal.goal.padEnd(width)}  ${goal.measured}`),
  ].join('\n');
}

/** BENCHMARKS.md: the run's figures, then `profileNotes` (bench/PROFILE.md, written by people) as they are. */
export function renderMarkdown(report: BenchReport, profileNotes = ''): string {
  const { machine, settings } = report;
  const comparisons = comparisonTable(report);
  const reads = readsTable(report);
  const readFigures = READ_KEYS.flatMap((key) => report.runs.find((run) => run.key === key)?.reads ?? []);
  const hostile = hostileTable(report);
  const webhook = webhookTable(report);
  const webhookFigures = report.runs.find((run) => run.key === 'webhook')?.webhook;
  const hostileFigures = report.runs.find((run) => run.key === 'hostile')?.hostile;
  const pg = machine.postgresSettings;
  const notes = [
    ...failures(report),
    ...report.runs.flatMap((run) => run.notes.map((note) => `${run.label}: ${note}`)),
  ].map((note) => `- ${note}`);
  return `# Benchmarks

The figures of the last full \`pnpm bench\` run, written by it: do not edit by hand. How the bench
works, and how to rerun a part of it: [bench/README.md](bench/README.md).

## Machine

| | |
|---|---|
| Date | ${machine.date} |
| CPU | ${machine.cpuModel}, ${machine.cores} cores |
| Memory | ${machine.memoryGiB} GiB |
| OS | ${machine.kernel} |
| Node | ${machine.node} |
| PostgreSQL | ${machine.postgres ?? 'not reached'}${
    pg
      ? ` (${Object.entries(pg)
          .map(([name, value]) => `${name}=${value}`)
          .join(', ')})`
      : ''
  } |
| pgbench | ${machine.pgbench ?? 'not found'} |
| Packages | ${Object.entries(machine.packages)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ')} |
| Commit | ${machine.gitCommit} |
| Load before the run | load average ${machine.loadAverageAtStart.toFixed(2)}, ${format.percent(machine.backgroundCpuPercent)} of the machine busy |
| Load | ${settings.durationSeconds} s per level at ${settings.connections.map((c) => `c${c}`).join(', ')} (keep-alive connections, one request in flight each), after a ${settings.warmupSeconds} s warm-up; ${settings.rounds === 1 ? 'one round' : `best of ${settings.rounds} rounds, each level on its own`}; whole run ${Math.round(report.wallSeconds)} s |

The load generator (autocannon), the server, PostgreSQL and anything else running share these
cores: a figure is this machine's figure, and the ratios, all taken in the same run, are what to
compare.${
    machine.backgroundCpuPercent > 25
      ? `\n\n**This run was disturbed**: the machine was already ${format.percent(machine.backgroundCpuPercent)} busy with others' work before it started, so its figures are low and scattered.`
      : ''
  }

## Results

${markdownTable(RESULT_HEADERS, resultRows(report), RESULT_RIGHT)}

req/s counts 2xx answers; p50 and p99 are their latencies. errors: non-2xx answers plus socket
errors and timeouts. peak RSS: the server process's resident memory at its highest during that
level. CPU: % of one core for the server process and for the load generator, % of all cores
for the machine; CPU us/req: the server process's CPU time per answered request, which others'
work on the machine disturbs less than req/s. baseline: the figure each row is a ratio to (x p99 below 1 is better).

## Ratios

${markdownTable(comparisons.headers, comparisons.rows, comparisons.right)}

${
  reads && readFigures[0]
    ? `## Reads on PostgreSQL

The service against a bare node:http + pg server doing the same SELECT on the same table of
${readFigures[0].seeded.toLocaleString('en-US')} plants, stored before the timed part, and answering the same JSON (checked
before the load). Both are up at once, loaded in turn on ${readFigures[0].connections} connections in
${readFigures[0].segmentSeconds} s segments: bare, service, bare, ..., bare. us/req: each server process's CPU time
per answered request (median of the segments); x CPU/req and x req/s: the service's over the mean
of the bare segments just before and after it (median, then each round's CPU ratio). No target is
set for reads: the figures are reported (INFO in the targets below).

${markdownTable(reads.headers, reads.rows, reads.right)}

`
    : ''
}${
  webhook && webhookFigures
    ? `## The webhook on creation

\`POST /plants\` on PostgreSQL at c${webhookFigures.connections}, each a plant of a fresh id: the service with the webhook on
(\`WEBHOOK_URLS\` a bare node:http receiver answering 204, a fresh \`WEBHOOK_SECRET\`) against the same
service with it off, both up at once on the same database, loaded in turn in ${webhookFigures.segmentSeconds} s segments:
off, on, off, ..., off. After each "on" segment the bench waits until the receiver has a delivery of
every plant created (at most ${webhookFigures.drainLimitSeconds} s): lag is that wait. CPU us/req: the service process's CPU
time per answered create (median of the segments); delivering incl.: for "on", from the segment's
start until its last delivery arrived, which is what x CPU/req compares. x req/s and x CPU/req: "on"
over the mean of the "off" segments just before and after it (median, then each round's req/s
ratio). The target is ${WEBHOOK_MIN_RPS_RATIO}x off in req/s: PASS when every round reaches it, FAIL when none does,
UNDECIDED when the rounds fall on both sides.

${markdownTable(webhook.headers, webhook.rows, webhook.right)}

`
    : ''
}${
  hostile && hostileFigures
    ? `## Hostile bodies

Bodies of ${hostileFigures.bytes.toLocaleString('en-US')} bytes shaped to cost, sent to the service (memory:) on
${hostileFigures.connections} connections in ${hostileFigures.segmentSeconds} s segments, in rounds of plain, shape A,
plain, shape B, ..., plain. CPU us/req: the server process's CPU time per answered request (median
of the rounds); x plain: that as a ratio to the plain body measured just before and after it
(median), with each round's ratio. The target is ${HOSTILE_MAX_RATIO}x: PASS when every round is within it, FAIL
when none is, UNDECIDED when the rounds fall on both sides.

${markdownTable(hostile.headers, hostile.rows, hostile.right)}

`
    : ''
}## Targets

| Status | Target | Measured |
|---|---|---|
${report.goals.map((goal) => `| ${goal.status} | ${goal.goal} | ${goal.measured} |`).join('\n')}
${notes.length > 0 ? `\n## Notes\n\n${notes.join('\n')}\n` : ''}${profileNotes === '' ? '' : `\n${profileNotes.trim()}\n`}`;
}
