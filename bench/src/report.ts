// Turns a run's figures into ratios, the issue's targets with PASS/FAIL, a table for the terminal
// and BENCHMARKS.md.
import { bracketRatios, type RoundSegment } from './interleave.ts';
import { formatLoadAverage } from './machine.ts';
import {
  type BenchReport,
  COMPARISONS,
  type Comparison,
  type Goal,
  type GoalStatus,
  type LevelFigures,
  type LevelRatios,
  PRIMARY_BASELINE,
  TARGET_LABELS,
  type TargetKey,
  type TargetRun,
  type WebhookFigures,
} from './results.ts';

const MB = 1024 * 1024;

function level(runs: readonly TargetRun[], key: TargetKey, connections: number): LevelFigures | undefined {
  return runs.find((run) => run.key === key)?.levels.find((figures) => figures.connections === connections);
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

/** The issue's figure for growth: with 1,000,000 and 10,000,000 plants stored, at least 0.9x the throughput of a small table. */
export const GROWTH_MIN_RPS_RATIO = 0.9;
/** The level growth is judged at. */
const GROWTH_CONNECTIONS = 64;

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
      basis: 'req/s',
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
    basis: 'CPU/req',
  }));
}

/** The issue's bound on memory: the server's peak RSS under c64 creates on PostgreSQL, host and image alike. */
export const PEAK_RSS_MAX_MB = 150;
const PEAK_RSS_CONNECTIONS = 64;
const megabytes = (value: number) => `${Math.round(value)} MB`;

/** Each round's peak RSS of a target at a level, in MB (closing segments are no round). */
function peaksAt(runs: readonly TargetRun[], key: TargetKey, connections: number): number[] {
  return segmentsAt(
    runs.find((run) => run.key === key),
    connections,
  ).flatMap(({ figures, closing }) =>
    closing || figures.peakRssBytes === undefined ? [] : [figures.peakRssBytes / MB],
  );
}

/** A failure's first line, fit for a table cell. */
const firstLine = (message: string) => (message.split('\n')[0] ?? '').replaceAll('|', '/').slice(0, 300);

/**
 * The api's image on PostgreSQL at c64: its container's main process held to the same peak RSS as the
 * host's service (judged round by round), with its VmRSS at the end and its cgroup's peak beside it,
 * and the host's service of the same rounds; NOT MEASURED with the reason when it could not run (no
 * Docker engine, no image). Its CPU per request against the host's service is reported (INFO).
 */
function imageGoals(runs: readonly TargetRun[], hostPeaks: readonly number[]): Goal[] {
  const run = runs.find((candidate) => candidate.key === 'image');
  const peaks = peaksAt(runs, 'image', PEAK_RSS_CONNECTIONS);
  const container = run?.container;
  const beside = [
    container?.rssAtEndBytes === undefined ? '' : `VmRSS at the end ${format.mb(container.rssAtEndBytes)}`,
    container?.cgroupPeakBytes === undefined
      ? ''
      : `container's cgroup at its peak ${format.mb(container.cgroupPeakBytes)} over its whole life (${container.cgroupPeakSource ?? 'cgroup'})`,
    peaks.length > 0 && hostPeaks.length > 0
      ? `host service ${megabytes(median(hostPeaks))} in the same run`
      : '',
  ].filter((text) => text !== '');
  const c = `c${PEAK_RSS_CONNECTIONS}`;
  const goals: Goal[] = [
    {
      goal: `image on PostgreSQL ${c}: server peak RSS <= ${PEAK_RSS_MAX_MB} MB`,
      basis: 'peak RSS',
      measured:
        peaks.length === 0
          ? run?.error === undefined
            ? 'not measured in this run'
            : `not measured: ${firstLine(run.error)}`
          : `${describeSpread(peaks, megabytes)}${beside.length > 0 ? `; ${beside.join('; ')}` : ''}`,
      status: judgeRatios(peaks, PEAK_RSS_MAX_MB, 'at most'),
    },
  ];
  const cpu = levelRatios(runs, 'image', 'postgres', PEAK_RSS_CONNECTIONS)?.cpu ?? [];
  if (cpu.length > 0) {
    const usPerRequest = (key: TargetKey) =>
      format.micros(level(runs, key, PEAK_RSS_CONNECTIONS)?.cpuUsPerRequest);
    goals.push({
      goal: `image on PostgreSQL ${c}: throughput vs the host's service (reported, no target)`,
      basis: 'CPU/req',
      measured: `${describeSpread(cpu)}; ${usPerRequest('image')} vs ${usPerRequest('postgres')} us/req`,
      status: 'INFO',
    });
  }
  return goals;
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

/** A target's segments at one level, as interleave.ts's segments (its key as the side). */
function segmentsAt(run: TargetRun | undefined, connections: number): RoundSegment<LevelFigures>[] {
  if (run === undefined) return [];
  const segments = run.segments ?? [];
  if (segments.length === 0) {
    // A run without segments (one level, one round) counts as round 1.
    const figures = run.levels.find((candidate) => candidate.connections === connections);
    return figures === undefined ? [] : [{ side: run.key, round: 1, figures }];
  }
  return segments
    .filter((figures) => figures.connections === connections)
    .map((figures) => ({
      side: run.key,
      round: figures.round ?? 1,
      ...(figures.closing ? { closing: true } : {}),
      figures,
    }));
}

const cpuOf = (figures: LevelFigures) => figures.cpuUsPerRequest ?? cpuPerRequestUs(figures);

/** Subject over baseline at one level, round by round (see LevelRatios); undefined when either is missing. */
export function levelRatios(
  runs: readonly TargetRun[],
  subject: TargetKey,
  baseline: TargetKey,
  connections: number,
): LevelRatios | undefined {
  const segments = [
    ...segmentsAt(
      runs.find((run) => run.key === baseline),
      connections,
    ),
    ...segmentsAt(
      runs.find((run) => run.key === subject),
      connections,
    ),
  ];
  const ratios = (value: (figures: LevelFigures) => number | undefined) =>
    bracketRatios(segments, subject, baseline, value).filter((ratio) => !Number.isNaN(ratio));
  const rps = ratios((figures) => figures.requestsPerSecond);
  if (rps.length === 0) return undefined;
  return {
    connections,
    rps,
    // The baseline's CPU per request over the subject's: above 1, the subject costs less.
    cpu: ratios(cpuOf)
      .filter(Number.isFinite)
      .map((ratio) => 1 / ratio),
    p50: ratios((figures) => figures.p50Ms),
    p99: ratios((figures) => figures.p99Ms),
  };
}

export function compare(runs: readonly TargetRun[]): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const [subject, baseline] of COMPARISONS) {
    const levels = (runs.find((run) => run.key === subject)?.levels ?? []).flatMap((figures) => {
      const found = levelRatios(runs, subject, baseline, figures.connections);
      return found === undefined ? [] : [found];
    });
    if (levels.length > 0) comparisons.push({ subject, baseline, levels });
  }
  return comparisons;
}

/**
 * One level's figure from its segments: the median of each rate, latency and CPU figure; requests,
 * errors and seconds added up; peak RSS the highest; the slowest answer the slowest.
 */
export function summarizeSegments(segments: readonly LevelFigures[]): LevelFigures {
  const of = (value: (figures: LevelFigures) => number | undefined) =>
    segments.map(value).filter((entry): entry is number => entry !== undefined && !Number.isNaN(entry));
  const medianOf = (value: (figures: LevelFigures) => number | undefined) => median(of(value));
  const sum = (value: (figures: LevelFigures) => number) =>
    segments.reduce((total, f) => total + value(f), 0);
  const peaks = of((figures) => figures.peakRssBytes);
  const cpu = of((figures) => figures.serverCpuPercent);
  const perRequest = of(cpuOf);
  return {
    connections: segments[0]?.connections ?? 0,
    durationSeconds: sum((figures) => figures.durationSeconds),
    requestsPerSecond: medianOf((figures) => figures.requestsPerSecond),
    ok: sum((figures) => figures.ok),
    non2xx: sum((figures) => figures.non2xx),
    socketErrors: sum((figures) => figures.socketErrors),
    p50Ms: medianOf((figures) => figures.p50Ms),
    p99Ms: medianOf((figures) => figures.p99Ms),
    maxMs: Math.max(...of((figures) => figures.maxMs)),
    loadGeneratorCpuPercent: medianOf((figures) => figures.loadGeneratorCpuPercent),
    machineCpuPercent: medianOf((figures) => figures.machineCpuPercent),
    ...(peaks.length > 0 ? { peakRssBytes: Math.max(...peaks) } : {}),
    ...(cpu.length > 0 ? { serverCpuPercent: median(cpu) } : {}),
    ...(perRequest.length > 0 ? { cpuUsPerRequest: median(perRequest) } : {}),
  };
}

/** "median 0.60x (3 rounds: 0.58x to 0.63x)": the figure judged, and its spread. */
export function describeSpread(
  values: readonly number[],
  show: (value: number) => string = format.ratio,
): string {
  if (values.length === 0) return 'not measured in this run';
  return `median ${show(median(values))} (${values.length} round${values.length === 1 ? '' : 's'}: ${show(Math.min(...values))} to ${show(Math.max(...values))})`;
}

/**
 * Which figure a throughput target is judged on: at 16 connections and more, where both servers
 * keep a core busy, CPU time per request (steadier than req/s when others share the machine); at c1
 * req/s, which is one request's round trip there.
 */
export function throughputBasis(connections: number): 'CPU/req' | 'req/s' {
  return connections >= 16 ? 'CPU/req' : 'req/s';
}

export function evaluateGoals(runs: readonly TargetRun[], connections: readonly number[]): Goal[] {
  const goals: Goal[] = [];
  const at = (subject: TargetKey, baseline: TargetKey, c: number) => levelRatios(runs, subject, baseline, c);
  const pick = (ratios: LevelRatios | undefined, basis: string): number[] =>
    ratios === undefined
      ? []
      : basis === 'CPU/req'
        ? ratios.cpu
        : basis === 'p50'
          ? ratios.p50
          : basis === 'p99'
            ? ratios.p99
            : ratios.rps;
  /** A ratio target, judged on the spread of its rounds' `basis` ratios; the other figures beside it. */
  const judge = (
    goal: string,
    ratios: LevelRatios | undefined,
    basis: string,
    target: number,
    bound: 'at least' | 'at most',
    extra = '',
  ) => {
    const values = pick(ratios, basis);
    const others =
      ratios === undefined
        ? ''
        : (['req/s', 'CPU/req', 'p50'] as const)
            .filter((other) => other !== basis && pick(ratios, other).length > 0)
            .map((other) => `${other} ${format.ratio(median(pick(ratios, other)))}`)
            .join(', ');
    goals.push({
      goal,
      basis,
      measured:
        values.length === 0
          ? 'not measured in this run'
          : `${describeSpread(values)}${others === '' ? '' : `; ${others}`}${extra}`,
      status: judgeRatios(values, target, bound),
    });
  };
  const info = (goal: string, ratios: LevelRatios | undefined, basis: string) => {
    const values = pick(ratios, basis);
    if (values.length > 0) goals.push({ goal, basis, measured: describeSpread(values), status: 'INFO' });
  };
  const usPerRequest = (key: TargetKey, c: number) => format.micros(level(runs, key, c)?.cpuUsPerRequest);

  // The service's own cost: memory against koa minimal, JWT against a static token.
  for (const c of connections) {
    const basis = throughputBasis(c);
    judge(
      `memory c${c}: ${basis === 'req/s' ? 'req/s' : 'throughput'} >= 0.85x koa minimal`,
      at('memory', 'koa', c),
      basis,
      0.85,
      'at least',
      basis === 'CPU/req' ? `; ${usPerRequest('memory', c)} vs ${usPerRequest('koa', c)} us/req` : '',
    );
  }
  for (const key of ['jwt-es256', 'jwt-rs256'] as const) {
    judge(
      `${key === 'jwt-es256' ? 'ES256' : 'RS256'} JWT c16 (cache warm): throughput >= 0.9x a static token`,
      at(key, 'memory', 16),
      'CPU/req',
      0.9,
      'at least',
      `; ${usPerRequest(key, 16)} vs ${usPerRequest('memory', 16)} us/req`,
    );
  }
  for (const c of connections) {
    const json = level(runs, 'json-server', c);
    const basis = throughputBasis(c);
    judge(
      `embedded c${c}: ${basis === 'req/s' ? 'req/s' : 'throughput'} >= 10x json-server`,
      at('embedded', 'json-server', c),
      basis,
      10,
      'at least',
      json ? `; json-server ${format.rps(json.requestsPerSecond)} creates/s` : '',
    );
  }
  // PostgreSQL: judged on req/s, since what the service saves there (commits, WAL flushes) is
  // PostgreSQL's work, not in the server process's CPU time.
  const aloneBare = level(runs, 'bare-pg', 1);
  const alone = level(runs, 'postgres', 1);
  judge(
    'PostgreSQL c1: p50 <= 1.15x node:http + pg',
    at('postgres', 'bare-pg', 1),
    'p50',
    1.15,
    'at most',
    alone && aloneBare ? `; p50 ${format.ms(alone.p50Ms)} vs ${format.ms(aloneBare.p50Ms)} ms` : '',
  );
  judge(
    'PostgreSQL c16: req/s >= 1.2x node:http + pg',
    at('postgres', 'bare-pg', 16),
    'req/s',
    1.2,
    'at least',
  );
  judge(
    'PostgreSQL c64: req/s >= 1.0x node:http + pg',
    at('postgres', 'bare-pg', 64),
    'req/s',
    1,
    'at least',
  );
  for (const c of [16, 64])
    judge(
      `PostgreSQL c${c}: p99 <= 1.3x node:http + pg`,
      at('postgres', 'bare-pg', c),
      'p99',
      1.3,
      'at most',
    );
  judge(
    'group commit c64: req/s >= 1.5x node:http + pg',
    at('postgres', 'bare-pg', 64),
    'req/s',
    1.5,
    'at least',
  );
  // Alone, a create must not wait for company: its p50 with group commit is held to the same
  // service without it (10% for the noise of a shared machine).
  const aloneWithout = level(runs, 'postgres-single', 1);
  judge(
    'group commit c1: p50 <= 1.1x GROUP_COMMIT=off (no added latency without concurrency)',
    at('postgres', 'postgres-single', 1),
    'p50',
    1.1,
    'at most',
    alone && aloneWithout ? `; p50 ${format.ms(alone.p50Ms)} vs ${format.ms(aloneWithout.p50Ms)} ms` : '',
  );
  for (const c of [16, 64])
    info(
      `group commit c${c}: req/s vs GROUP_COMMIT=off (reported, no target)`,
      at('postgres', 'postgres-single', c),
      'req/s',
    );
  // Growth: the same service on a large table against a small one at c64, on req/s, round by round:
  // creates against the empty table, reads against the same reads of a table of 10,000 plants.
  const growth = (goal: string, subject: TargetKey, baseline: TargetKey) => {
    const large = level(runs, subject, GROWTH_CONNECTIONS);
    const small = level(runs, baseline, GROWTH_CONNECTIONS);
    judge(
      goal,
      at(subject, baseline, GROWTH_CONNECTIONS),
      'req/s',
      GROWTH_MIN_RPS_RATIO,
      'at least',
      large && small
        ? `; ${format.rps(large.requestsPerSecond)} vs ${format.rps(small.requestsPerSecond)} req/s`
        : '',
    );
  };
  const c = `c${GROWTH_CONNECTIONS}`;
  for (const [rows, key] of [
    ['1,000,000', 'growth'],
    ['10,000,000', 'growth-10m'],
  ] as const)
    growth(
      `PostgreSQL with ${rows} plants stored, ${c}: req/s >= ${GROWTH_MIN_RPS_RATIO}x the empty table`,
      key,
      'postgres',
    );
  for (const [request, get] of [
    ['GET /plants/{id}', true],
    ['GET /plants?limit=100&after={id}', false],
  ] as const)
    for (const [rows, large] of [
      ['1,000,000', '1m'],
      ['10,000,000', '10m'],
    ] as const)
      growth(
        `PostgreSQL ${request} with ${rows} plants stored, ${c}: req/s >= ${GROWTH_MIN_RPS_RATIO}x 10,000 plants`,
        get ? `growth-get-${large}` : `growth-list-${large}`,
        get ? 'growth-get-10k' : 'growth-list-10k',
      );
  const peaks = peaksAt(runs, 'postgres', PEAK_RSS_CONNECTIONS);
  goals.push({
    goal: `PostgreSQL c${PEAK_RSS_CONNECTIONS}: server peak RSS <= ${PEAK_RSS_MAX_MB} MB`,
    basis: 'peak RSS',
    measured: describeSpread(peaks, megabytes),
    status: judgeRatios(peaks, PEAK_RSS_MAX_MB, 'at most'),
  });
  goals.push(...imageGoals(runs, peaks));
  for (const c of connections) {
    const basis = throughputBasis(c);
    info(`koa minimal c${c}: ${basis} vs bare node:http (reported, no target)`, at('koa', 'bare', c), basis);
    info(`memory c${c}: ${basis} vs bare node:http (reported, no target)`, at('memory', 'bare', c), basis);
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
  'rounds',
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
  'x CPU/req',
  'x p99',
];
// Right-aligned columns, for numbers.
const RESULT_RIGHT = RESULT_HEADERS.map((header) => !['target', 'baseline'].includes(header));

function resultRows(report: BenchReport): string[][] {
  const rows: string[][] = [];
  for (const run of report.runs) {
    const baselineKey = PRIMARY_BASELINE[run.key];
    for (const figures of run.levels) {
      const ratios = baselineKey
        ? levelRatios(report.runs, run.key, baselineKey, figures.connections)
        : undefined;
      const rounds = (run.segments ?? []).filter(
        (segment) =>
          segment.connections === figures.connections && (segment.round ?? 0) <= report.settings.rounds,
      ).length;
      rows.push([
        run.label,
        `c${figures.connections}`,
        rounds === 0 ? '1' : String(rounds),
        format.rps(figures.requestsPerSecond),
        format.ms(figures.p50Ms),
        format.ms(figures.p99Ms),
        String(figures.non2xx + figures.socketErrors),
        format.mb(figures.peakRssBytes),
        format.percent(figures.serverCpuPercent),
        format.micros(cpuOf(figures)),
        format.percent(figures.loadGeneratorCpuPercent),
        format.percent(figures.machineCpuPercent),
        ratios && baselineKey ? baselineKey : '',
        ratios ? format.ratio(median(ratios.rps)) : '',
        ratios && ratios.cpu.length > 0 ? format.ratio(median(ratios.cpu)) : '',
        ratios ? format.ratio(median(ratios.p99)) : '',
      ]);
    }
    if (run.error !== undefined) {
      rows.push([run.label, '-', '', 'FAILED', ...Array<string>(RESULT_HEADERS.length - 4).fill('')]);
    }
  }
  return rows;
}

function failures(report: BenchReport): string[] {
  return report.runs.flatMap((run) =>
    run.error === undefined ? [] : [`FAILED ${run.label}: ${run.error.split('\n')[0] ?? ''}`],
  );
}

/** "0.60x (0.58-0.63)": the median of the rounds, and their spread. */
function medianAndSpread(values: readonly number[]): string {
  if (values.length === 0) return '-';
  if (values.length === 1) return format.ratio(values[0]);
  return `${format.ratio(median(values))} (${(Math.min(...values)).toFixed(2)}-${(Math.max(...values)).toFixed(2)})`;
}

function comparisonTable(report: BenchReport): { headers: string[]; rows: string[][]; right: boolean[] } {
  const headers = ['ratio', 'conns', 'x req/s', 'x CPU/req', 'x p50', 'x p99'];
  const rows = report.comparisons.flatMap((comparison) =>
    comparison.levels.map((ratios) => [
      `${TARGET_LABELS[comparison.subject]} / ${TARGET_LABELS[comparison.baseline]}`,
      `c${ratios.connections}`,
      medianAndSpread(ratios.rps),
      medianAndSpread(ratios.cpu),
      medianAndSpread(ratios.p50),
      medianAndSpread(ratios.p99),
    ]),
  );
  return { headers, rows, right: headers.map((_, index) => index > 0) };
}

/** The machine, for the terminal: the CPU model, its cores, the load average at the start and the end. */
export function machineLine(report: BenchReport): string {
  const machine: Partial<BenchReport['machine']> = report.machine ?? {};
  return (
    `${machine.cpuModel ?? 'unknown CPU'}, ${machine.cores ?? '?'} cores; load average ` +
    `${formatLoadAverage(machine.loadAverageAtStart)} at the start, ${formatLoadAverage(report.loadAverageAtEnd)} at the end`
  );
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
  const basisWidth = Math.max(0, ...report.goals.map((goal) => (goal.basis ?? '').length));
  return [
    machineLine(report),
    '',
    textTable(RESULT_HEADERS, resultRows(report), RESULT_RIGHT),
    ...failures(report),
    '',
    textTable(comparisons.headers, comparisons.rows, comparisons.right),
    '',
    ...(reads ? [textTable(reads.headers, reads.rows, reads.right), ''] : []),
    ...(webhook ? [textTable(webhook.headers, webhook.rows, webhook.right), ''] : []),
    ...(hostile ? [textTable(hostile.headers, hostile.rows, hostile.right), ''] : []),
    ...report.goals.map(
      (goal) =>
        `${goal.status.padEnd(12)} ${goal.goal.padEnd(width)}  ${(goal.basis ?? '').padEnd(basisWidth)}  ${goal.measured}`,
    ),
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
| Load average | ${formatLoadAverage(machine.loadAverageAtStart)} at the start (1, 5, 15 min), ${formatLoadAverage(report.loadAverageAtEnd)} at the end; ${format.percent(machine.backgroundCpuPercent)} of the machine busy in the second before the run |
| Load | ${settings.durationSeconds} s per server and level at ${settings.connections.map((c) => `c${c}`).join(', ')} (keep-alive connections, one request in flight each), after a ${settings.warmupSeconds} s warm-up, in ${settings.rounds} interleaved rounds of ${format.seconds(settings.segmentSeconds ?? settings.durationSeconds / settings.rounds)} s segments (every server of a comparison up at once, loaded in turn); whole run ${Math.round(report.wallSeconds)} s |

The load generator (autocannon), the server, PostgreSQL and anything else running share these
cores: a figure is this machine's figure, and the ratios, all taken in the same run, are what to
compare.${
    machine.backgroundCpuPercent > 25
      ? `\n\n**This run was disturbed**: the machine was already ${format.percent(machine.backgroundCpuPercent)} busy with others' work before it started, so its figures are low and scattered.`
      : ''
  }

## Results

Each row is the median of its segments (rounds), one segment per round and server, servers of a
comparison up at once and loaded in turn: A, B, A, B, ..., A. The x columns are the median of the
rounds' ratios to the baseline's segments just before and after (x CPU/req: the baseline's CPU per
request over this one's, so that above 1 is better, as for req/s).

${markdownTable(RESULT_HEADERS, resultRows(report), RESULT_RIGHT)}

req/s counts 2xx answers; p50 and p99 are their latencies. errors: non-2xx answers plus socket
errors and timeouts. peak RSS: the server process's resident memory at its highest during that
level. CPU: % of one core for the server process and for the load generator, % of all cores
for the machine; CPU us/req: the server process's CPU time per answered request, which others'
work on the machine disturbs less than req/s. baseline: the figure each row is a ratio to (x p99 below 1 is better).

## Ratios

The median of the rounds, and their spread (lowest-highest).

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

PASS when every round is on the right side of the target, FAIL when every round is on the wrong
side, UNDECIDED when the rounds fall on both sides. "Judged on" is the figure whose rounds decide
(bench/README.md says why each).

| Status | Target | Judged on | Measured |
|---|---|---|---|
${report.goals.map((goal) => `| ${goal.status} | ${goal.goal} | ${goal.basis ?? ''} | ${goal.measured} |`).join('\n')}
${notes.length > 0 ? `\n## Notes\n\n${notes.join('\n')}\n` : ''}${profileNotes === '' ? '' : `\n${profileNotes.trim()}\n`}`;
}
