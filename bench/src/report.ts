// From a run's segments to ratios, verdicts and the tables of the terminal and BENCHMARKS.md. Pure:
// no I/O, so that `--render` and the tests judge figures exactly as a run does.

/** One segment of load on one server (or a level's summary of them). */
export interface Figures {
  readonly connections: number;
  readonly seconds: number;
  /** Answers of the expected status (2xx unless a side says otherwise) per second. */
  readonly rps: number;
  readonly ok: number;
  /** Other answers, socket errors and timeouts. */
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server process's CPU time per ok answer (pgbench: absent). */
  readonly cpuUsPerRequest?: number;
  readonly serverCpuPercent?: number;
  /** The server process's resident memory at its highest during the segment. */
  readonly peakRssBytes?: number;
  /** % of one core for the load generator, % of all cores for the machine. */
  readonly loadCpuPercent?: number;
  readonly machineCpuPercent?: number;
  /** Its interleaved round (rounds + 1: a baseline's closing segment), and its place in the group's order. */
  readonly round?: number;
  readonly seq?: number;
  readonly closing?: boolean;
}

export interface TargetRun {
  readonly key: string;
  readonly label: string;
  /** What its figures are compared to, the first in the results table. */
  readonly baselines: readonly string[];
  readonly segments: Figures[];
  readonly notes: string[];
  error?: string;
  /** The webhook's deliveries: every plant created, received within the limit. */
  deliveries?: { expected: number; received: number; lagSeconds: number[]; limitSeconds: number };
  /** A traced service's exports as the OTLP sink received them, and the plants it created. */
  traces?: {
    exports: number;
    bytes: number;
    spans: number;
    serverSpans: number;
    creates: number;
    /** Spans the service itself counted as dropped (a full queue, a failed export). */
    dropped: number;
  };
}

export interface Report {
  readonly machine: {
    readonly cpuModel: string;
    readonly cores: number;
    readonly loadAverageAtStart: readonly number[];
    /** % of all cores others kept busy in the second before the run. */
    readonly busyPercent: number;
    /** Memory, OS, Node, PostgreSQL and its settings, the packages, the commit: one line each. */
    readonly details: Readonly<Record<string, string>>;
  };
  readonly settings: {
    readonly durationSeconds: number;
    readonly rounds: number;
    readonly connections: number[];
    /** A partial run's --only. */
    readonly only?: string[];
  };
  readonly runs: TargetRun[];
  readonly wallSeconds: number;
  readonly loadAverageAtEnd: readonly number[];
}

export type Status = 'PASS' | 'FAIL' | 'UNDECIDED' | 'NOT MEASURED';
/** req/s, p50, p99, us/req: subject over baseline; CPU/req: baseline over subject (a throughput: above 1, cheaper). */
export type Basis = 'req/s' | 'CPU/req' | 'us/req' | 'p50' | 'p99';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** PASS when every round is on the right side of the target, FAIL when none is, UNDECIDED when they straddle it. */
export function judge(values: readonly number[], bound: '>=' | '<=', target: number): Status {
  if (values.length === 0 || values.some(Number.isNaN)) return 'NOT MEASURED';
  const within = (value: number) => (bound === '>=' ? value >= target : value <= target);
  if (values.every(within)) return 'PASS';
  return values.some(within) ? 'UNDECIDED' : 'FAIL';
}

const figureOf: Record<Basis, (figures: Figures) => number | undefined> = {
  'req/s': (figures) => figures.rps,
  'CPU/req': (figures) => figures.cpuUsPerRequest,
  'us/req': (figures) => figures.cpuUsPerRequest,
  p50: (figures) => figures.p50Ms,
  p99: (figures) => figures.p99Ms,
};

/**
 * Round by round at one level: each subject segment over the mean of its baseline's segments just
 * before and just after it in the group's order (the one before alone when none follows), so that a
 * load that comes and goes, or a drift, hits both sides alike. A closing segment is never a round.
 */
export function ratios(
  subject: readonly Figures[],
  baseline: readonly Figures[],
  connections: number,
  basis: Basis,
): number[] {
  const value = figureOf[basis];
  const base = baseline.filter((figures) => figures.connections === connections);
  return subject.flatMap((figures) => {
    if (figures.connections !== connections || figures.closing) return [];
    const seq = figures.seq ?? 0;
    const before = base.filter((other) => (other.seq ?? 0) < seq).at(-1);
    const after = base.find((other) => (other.seq ?? 0) > seq);
    const measured = value(figures);
    const [b, a] = [before && value(before), after && value(after)];
    if (measured === undefined || b === undefined) return [];
    const ratio = measured / (a === undefined ? b : (a + b) / 2);
    return Number.isFinite(ratio) ? [basis === 'CPU/req' ? 1 / ratio : ratio] : [];
  });
}

/** A level's figure: the median of each rate, latency and CPU figure, answers and errors added up, the highest peak. */
export function summarize(segments: readonly Figures[]): Figures {
  const of = (value: (figures: Figures) => number | undefined) =>
    segments.map(value).filter((entry): entry is number => entry !== undefined && !Number.isNaN(entry));
  const optional = (name: keyof Figures, values: number[], pick = median) =>
    values.length > 0 ? { [name]: pick(values) } : {};
  return {
    connections: segments[0]?.connections ?? 0,
    seconds: of((figures) => figures.seconds).reduce((sum, value) => sum + value, 0),
    rps: median(of((figures) => figures.rps)),
    ok: of((figures) => figures.ok).reduce((sum, value) => sum + value, 0),
    errors: of((figures) => figures.errors).reduce((sum, value) => sum + value, 0),
    p50Ms: median(of((figures) => figures.p50Ms)),
    p99Ms: median(of((figures) => figures.p99Ms)),
    ...optional(
      'cpuUsPerRequest',
      of((figures) => figures.cpuUsPerRequest),
    ),
    ...optional(
      'serverCpuPercent',
      of((figures) => figures.serverCpuPercent),
    ),
    ...optional(
      'peakRssBytes',
      of((figures) => figures.peakRssBytes),
      (values) => Math.max(...values),
    ),
    ...optional(
      'loadCpuPercent',
      of((figures) => figures.loadCpuPercent),
    ),
    ...optional(
      'machineCpuPercent',
      of((figures) => figures.machineCpuPercent),
    ),
  };
}

/** The levels a run was measured at, in order. */
export function levelsOf(run: TargetRun): number[] {
  return [...new Set(run.segments.map((figures) => figures.connections))];
}

export interface Target {
  readonly subject: string;
  /** Absent: an absolute bound on the subject's peak RSS, in MB. */
  readonly baseline?: string;
  readonly connections: number;
  readonly basis: Basis | 'peak RSS';
  readonly bound: '>=' | '<=';
  readonly value: number;
}

const target = (
  subject: string,
  baseline: string | undefined,
  connections: number,
  basis: Target['basis'],
  bound: Target['bound'],
  value: number,
): Target => ({ subject, ...(baseline === undefined ? {} : { baseline }), connections, basis, bound, value });

/** The targets bench/README.md lists and says why each is judged on its figure; hostile bodies and deliveries come per run. */
export const TARGETS: readonly Target[] = [
  target('memory', 'koa', 16, 'CPU/req', '>=', 0.8),
  target('memory', 'koa', 64, 'CPU/req', '>=', 0.8),
  target('jwt-es256', 'memory', 16, 'CPU/req', '>=', 0.9),
  target('jwt-rs256', 'memory', 16, 'CPU/req', '>=', 0.9),
  target('postgres', 'kysely', 1, 'p50', '<=', 1.2),
  target('postgres', 'kysely', 16, 'req/s', '>=', 1.2),
  target('postgres', 'kysely', 64, 'req/s', '>=', 2),
  target('postgres', 'kysely', 16, 'p99', '<=', 1.3),
  target('postgres', 'kysely', 64, 'p99', '<=', 1.3),
  target('postgres', undefined, 64, 'peak RSS', '<=', 150),
  target('image', undefined, 64, 'peak RSS', '<=', 150),
  target('embedded', 'pglite', 1, 'req/s', '>=', 0.8),
  target('embedded', 'pglite', 16, 'CPU/req', '>=', 0.8),
  target('put', 'create', 16, 'us/req', '<=', 1.3),
  target('get-304', 'get-200', 16, 'us/req', '<=', 1),
  ...['create', 'get', 'list'].flatMap((kind) =>
    ['1m', '10m'].map((size) => target(`${kind}-${size}`, `${kind}-10k`, 64, 'req/s', '>=', 0.9)),
  ),
  target('tag-10m', 'tag-10k', 64, 'req/s', '>=', 0.9),
  target('webhook-on', 'webhook-off', 64, 'req/s', '>=', 0.5),
  target('trace-10-memory', 'trace-off-memory', 16, 'CPU/req', '>=', 0.85),
  target('trace-10-postgres', 'trace-off-postgres', 16, 'CPU/req', '>=', 0.85),
];

/** "memory vs koa c16: CPU/req >= 0.8x", "postgres c64: peak RSS <= 150 MB". */
export function targetText({ subject, baseline, connections, basis, bound, value }: Target): string {
  return baseline === undefined
    ? `${subject} c${connections}: ${basis} ${bound} ${value} MB`
    : `${subject} vs ${baseline} c${connections}: ${basis} ${bound} ${value}x`;
}

/** DESIGN.md: no body makes a request cost more than a few times a plain body of the same size. */
export const HOSTILE_MAX_RATIO = 3;

export interface Goal {
  readonly status: Status;
  readonly text: string;
  readonly basis: string;
  readonly measured: string;
  /** A judged figure's target and its rounds (ratios, or MB for peak RSS); absent for counts. */
  readonly target?: Target;
  readonly rounds?: readonly number[];
}

const MB = 1024 * 1024;

export const format = {
  rps: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : Math.round(value).toLocaleString('en-US'),
  ms: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(value < 1 ? 3 : value < 10 ? 2 : 1),
  mb: (bytes: number | undefined) => (bytes === undefined ? '-' : `${Math.round(bytes / MB)} MB`),
  percent: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : `${Math.round(value)}%`,
  ratio: (value: number | undefined) =>
    value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`,
};

/** "median 0.85x (3 rounds: 0.79x to 1.10x)": the figure judged, and its spread. */
export function spread(values: readonly number[], show: (value: number) => string = format.ratio): string {
  if (values.length === 0) return 'not measured in this run';
  const rounds = `${values.length} round${values.length === 1 ? '' : 's'}`;
  return `median ${show(median(values))} (${rounds}: ${show(Math.min(...values))} to ${show(Math.max(...values))})`;
}

function judgeTarget(runs: readonly TargetRun[], target: Target, text = targetText(target)): Goal {
  const find = (key: string | undefined) => runs.find((run) => run.key === key);
  const subject = find(target.subject);
  const segments = (subject?.segments ?? []).filter(
    (figures) => figures.connections === target.connections && !figures.closing,
  );
  const why =
    subject?.error === undefined ? 'not measured in this run' : `not measured: ${firstLine(subject.error)}`;
  if (target.basis === 'peak RSS') {
    const peaks = segments.flatMap((figures) =>
      figures.peakRssBytes === undefined ? [] : [figures.peakRssBytes / MB],
    );
    const show = (mb: number) => `${Math.round(mb)} MB`;
    return {
      status: judge(peaks, target.bound, target.value),
      text,
      basis: 'peak RSS',
      measured: peaks.length === 0 ? why : spread(peaks, show),
      target,
      rounds: peaks,
    };
  }
  const baseline = find(target.baseline)?.segments ?? [];
  const at = (basis: Basis) => ratios(segments, baseline, target.connections, basis);
  const values = at(target.basis);
  const others = (['req/s', 'CPU/req', 'p50'] as const)
    .filter((basis) => basis !== target.basis && at(basis).length > 0)
    .map((basis) => `${basis} ${format.ratio(median(at(basis)))}`);
  const us = (figures: readonly Figures[]) =>
    median(
      figures.filter((f) => f.connections === target.connections).flatMap((f) => f.cpuUsPerRequest ?? []),
    );
  const cost = Number.isFinite(us(segments))
    ? `${Math.round(us(segments))} vs ${Math.round(us(baseline))} us/req`
    : '';
  return {
    status: judge(values, target.bound, target.value),
    text,
    basis: target.basis,
    measured:
      values.length === 0 ? why : [spread(values), others.join(', '), cost].filter(Boolean).join('; '),
    target,
    rounds: values,
  };
}

/** Every target of TARGETS (NOT MEASURED when its sides did not run), then each hostile body's and the deliveries'. */
export function evaluateGoals(runs: readonly TargetRun[]): Goal[] {
  const hostile = runs
    .filter((run) => run.key.startsWith('hostile-'))
    .map((run) =>
      judgeTarget(
        runs,
        target(run.key, 'plain', run.segments[0]?.connections ?? 0, 'us/req', '<=', HOSTILE_MAX_RATIO),
        `hostile body, ${run.label}: CPU/req <= ${HOSTILE_MAX_RATIO}x a plain body of the same size`,
      ),
    );
  const deliveries = runs.flatMap(({ deliveries: d }) => {
    if (d === undefined) return [];
    const lag =
      d.lagSeconds.length > 0
        ? `; lag after a segment at most ${Math.max(...d.lagSeconds).toFixed(2)} s`
        : '';
    return [
      {
        status: d.expected === 0 ? 'NOT MEASURED' : d.received >= d.expected ? 'PASS' : 'FAIL',
        text: `webhook deliveries: every plant created received within ${d.limitSeconds} s of its segment`,
        basis: 'count',
        measured: `${d.received.toLocaleString('en-US')} of ${d.expected.toLocaleString('en-US')}${lag}`,
      } satisfies Goal,
    ];
  });
  // A traced service whose spans never reached the sink has tracing silently off: a defect, not a saving.
  const exported = runs.flatMap(({ key, traces: t }) => {
    if (t === undefined) return [];
    const per = (value: number, digits = 2) => (t.creates === 0 ? '-' : (value / t.creates).toFixed(digits));
    return [
      {
        status: t.creates === 0 ? 'NOT MEASURED' : t.exports > 0 ? 'PASS' : 'FAIL',
        text: `${key} exports: its spans reached the OTLP collector`,
        basis: 'count',
        measured:
          `${t.spans.toLocaleString('en-US')} spans in ${t.exports.toLocaleString('en-US')} exports for ` +
          `${t.creates.toLocaleString('en-US')} creates, ${t.dropped.toLocaleString('en-US')} dropped; a create: ` +
          `${per(t.serverSpans)} server spans, ${per(t.spans)} spans, ${per(t.bytes, 0)} bytes`,
      } satisfies Goal,
    ];
  });
  return [...TARGETS.map((target) => judgeTarget(runs, target)), ...hostile, ...deliveries, ...exported];
}

/** A failure's first line, fit for a table cell. */
const firstLine = (message: string) => (message.split('\n')[0] ?? '').replaceAll('|', '/').slice(0, 300);

interface Table {
  readonly headers: string[];
  readonly rows: string[][];
}

/** One level of one run, as the results tables show it. */
interface Row {
  readonly run: TargetRun;
  readonly level: Figures;
  readonly rounds: number;
  readonly baseline: string;
  /** The median ratio to the first baseline, on a basis. */
  readonly x: (basis: Basis) => string;
  /** The median req/s ratio to each further baseline: "bare-pg 2.77x, pgbench 2.71x". */
  readonly others: string;
}

const RESULT_COLUMNS: ReadonlyArray<readonly [string, (row: Row) => string]> = [
  ['side', (row) => row.run.label],
  ['conns', (row) => `c${row.level.connections}`],
  ['rounds', (row) => String(row.rounds)],
  ['req/s', (row) => format.rps(row.level.rps)],
  ['p50 ms', (row) => format.ms(row.level.p50Ms)],
  ['p99 ms', (row) => format.ms(row.level.p99Ms)],
  ['errors', (row) => String(row.level.errors)],
  ['peak RSS', (row) => format.mb(row.level.peakRssBytes)],
  ['server CPU', (row) => format.percent(row.level.serverCpuPercent)],
  ['CPU us/req', (row) => format.rps(row.level.cpuUsPerRequest)],
  ['load gen CPU', (row) => format.percent(row.level.loadCpuPercent)],
  ['machine CPU', (row) => format.percent(row.level.machineCpuPercent)],
  ['baseline', (row) => row.baseline],
  ['x req/s', (row) => row.x('req/s')],
  ['x CPU/req', (row) => row.x('CPU/req')],
  ['x p99', (row) => row.x('p99')],
];

/** BENCHMARKS.md's: what a reader needs to judge each target, the ratios to every baseline folded in. */
const COMPACT_COLUMNS: ReadonlyArray<readonly [string, (row: Row) => string]> = [
  ...RESULT_COLUMNS.filter(([header]) => !['rounds', 'server CPU', 'load gen CPU'].includes(header)),
  ['x req/s, other baselines', (row) => row.others],
];

function resultsTable(
  runs: readonly TargetRun[],
  columns: ReadonlyArray<readonly [string, (row: Row) => string]> = RESULT_COLUMNS,
): Table {
  const rows = runs.flatMap((run) => {
    const [baseline, ...others] = run.baselines.flatMap((key) => runs.filter((other) => other.key === key));
    return levelsOf(run).map((c) => {
      const mine = run.segments.filter((figures) => figures.connections === c);
      const x = (against: TargetRun, basis: Basis) =>
        format.ratio(median(ratios(mine, against.segments, c, basis)));
      const row: Row = {
        run,
        level: summarize(mine),
        rounds: mine.filter((figures) => !figures.closing).length,
        baseline: baseline?.key ?? '',
        x: (basis) => (baseline ? x(baseline, basis) : ''),
        others: others.map((other) => `${other.key} ${x(other, 'req/s')}`).join(', '),
      };
      return columns.map(([, cell]) => cell(row));
    });
  });
  return { headers: columns.map(([header]) => header), rows };
}

/** Every ratio of every run to each of its baselines: the median of the rounds and their spread. */
function ratiosTable(runs: readonly TargetRun[]): Table {
  const cell = (values: number[]) =>
    values.length === 0
      ? '-'
      : `${format.ratio(median(values))} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
  const rows = runs.flatMap((run) =>
    run.baselines.flatMap((key) => {
      const baseline = runs.find((other) => other.key === key);
      if (baseline === undefined) return [];
      return levelsOf(run).flatMap((c) => {
        const at = (basis: Basis) => ratios(run.segments, baseline.segments, c, basis);
        if (at('req/s').length === 0) return [];
        return [
          [
            `${run.label} / ${baseline.label}`,
            `c${c}`,
            cell(at('req/s')),
            cell(at('CPU/req')),
            cell(at('p50')),
            cell(at('p99')),
          ],
        ];
      });
    }),
  );
  return { headers: ['ratio', 'conns', 'x req/s', 'x CPU/req', 'x p50', 'x p99'], rows };
}

/** A partial run (--only) leaves out the targets of sides it did not start. */
export function shownGoals(report: Report): Goal[] {
  const { runs } = report;
  return evaluateGoals(runs).filter(
    (goal) =>
      report.settings.only === undefined ||
      goal.status !== 'NOT MEASURED' ||
      runs.some((run) => goal.text.startsWith(`${run.key} `)),
  );
}

function goalsTable(goals: readonly Goal[]): Table {
  return {
    headers: ['status', 'target', 'judged on', 'measured'],
    rows: goals.map((goal) => [goal.status, goal.text, goal.basis, goal.measured]),
  };
}

function textTable({ headers, rows }: Table): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function markdownTable({ headers, rows }: Table): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

const loadAverage = (values: readonly number[] | undefined) =>
  (values ?? []).map((value) => value.toFixed(2)).join(' ');

/** The machine in one line: its CPU, its cores, and how busy others kept it. */
export function machineLine(report: Report): string {
  const { machine } = report;
  return (
    `${machine.cpuModel}, ${machine.cores} cores; load average ${loadAverage(machine.loadAverageAtStart)} at the start, ` +
    `${loadAverage(report.loadAverageAtEnd)} at the end; ${format.percent(machine.busyPercent)} busy in the second before`
  );
}

const failures = (runs: readonly TargetRun[]) =>
  runs.flatMap((run) => (run.error === undefined ? [] : [`FAILED ${run.label}: ${firstLine(run.error)}`]));

export function renderText(report: Report): string {
  return [
    machineLine(report),
    [textTable(resultsTable(report.runs)), ...failures(report.runs)].join('\n'),
    textTable(ratiosTable(report.runs)),
    textTable(goalsTable(shownGoals(report))),
  ].join('\n\n');
}

/** "18 PASS, 11 FAIL, 4 UNDECIDED": the verdicts counted, the absent ones left out. */
function verdictCount(goals: readonly Goal[]): string {
  const statuses: readonly Status[] = ['PASS', 'FAIL', 'UNDECIDED', 'NOT MEASURED'];
  return statuses
    .map((status) => [status, goals.filter((goal) => goal.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
}

/** The failures, then each note once, with every side that gave it. */
function notesOf(runs: readonly TargetRun[]): string[] {
  const sides = new Map<string, string[]>();
  for (const run of runs)
    for (const note of run.notes) sides.set(note, [...(sides.get(note) ?? []), run.label]);
  return [...failures(runs), ...[...sides].map(([note, labels]) => `${labels.join('; ')}: ${note}`)];
}

/** The picture of a run's targets (chart.ts), beside latest.json, from the repository's root. */
export const CHART_PATH = 'bench/results/latest.svg';

/**
 * BENCHMARKS.md: the picture of the targets, the targets and their verdicts, one row of figures per side and level,
 * the notes. What the profiles showed is bench/PROFILE.md's, linked, never copied in. Each section is
 * one entry of the list, so that another finds its place between them.
 */
export function renderMarkdown(report: Report): string {
  const { machine, settings } = report;
  const details = Object.entries(machine.details).map(([name, value]) => `| ${name} | ${value} |`);
  const goals = shownGoals(report);
  const notes = notesOf(report.runs).map((note) => `- ${note}`);
  const sections = [
    `# Benchmarks

The figures of the last full \`pnpm bench\` run, written by it: do not edit by hand. How the bench
works, what each target is and why it is judged on its figure: [bench/README.md](bench/README.md). What
the profiles showed and what was decided from them: [bench/PROFILE.md](bench/PROFILE.md).`,
    `## At a glance

![Each target's rounds against its target line, coloured by its verdict](${CHART_PATH})

A row per target judged on its rounds, drawn from the same figures as the tables below (the counts of
deliveries and exports are in the table alone): a dot per round, a tick at their median, the dashed
target line and, shaded, the side of it where the target is met.`,
    `## Machine

| | |
|---|---|
| CPU | ${machineLine(report)} |
${details.join('\n')}
| load | ${settings.durationSeconds} s per server and level at ${settings.connections.map((c) => `c${c}`).join(', ')}, in ${settings.rounds} interleaved rounds; whole run ${Math.round(report.wallSeconds)} s |`,
    `## Targets

${verdictCount(goals)}. PASS when every round is on the right side of the target, FAIL when every
round is on the wrong side, UNDECIDED when the rounds fall on both sides. "measured" gives the median of
the rounds and their spread, then the side's other ratios to the same baseline and its CPU per request.

${markdownTable(goalsTable(goals))}`,
    `## Results

One row per side and level, the median of its segments. The x columns are the median of the rounds'
ratios to the first baseline's segments just before and after (x CPU/req: the baseline's CPU per
request over this one's, so that above 1 is better, as for req/s; x p99 below 1 is better); the last
column gives req/s against the side's other baselines, printed and not judged.

${markdownTable(resultsTable(report.runs, COMPACT_COLUMNS))}`,
    ...(notes.length > 0 ? [`## Notes\n\n${notes.join('\n')}`] : []),
  ];
  return `${sections.join('\n\n')}\n`;
}
