// BENCHMARKS.md's picture: every judged target's rounds against its target line, in its verdict's
// colour, with the absolute figures beside it. Pure, like report.ts: `--render` and the tests draw
// exactly what a run draws.
import {
  type Figures,
  format,
  type Goal,
  median,
  type Report,
  type Status,
  shownGoals,
  summarize,
  type Target,
} from './report.ts';

export const VERDICT_COLOURS: Readonly<Record<Status, string>> = {
  PASS: '#1a7f37',
  FAIL: '#cf222e',
  UNDECIDED: '#9a6700',
  'NOT MEASURED': '#6e7781',
};

const WIDTH = 1080;
const LEFT = 16;
const PLOT_X = 540;
const PLOT_WIDTH = 400;
const VALUE_X = PLOT_X + PLOT_WIDTH + 18;
const ROW_HEIGHT = 40;
const INK = '#1f2328';
const MUTED = '#57606a';
const GRID = '#d0d7de';
const FONT = 'DejaVu Sans, Verdana, Segoe UI, Helvetica, Arial, sans-serif';

export const escapeXml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

/** Coordinates to one decimal: enough for a screen, and the file stays readable. */
const n = (value: number) => String(Math.round(value * 10) / 10);

/** A width-proportional font averages about 0.6 em a character: cut what would run into the next column. */
const fit = (text: string, width: number, size: number) => {
  const most = Math.floor(width / (size * 0.6));
  return text.length <= most ? text : `${text.slice(0, most - 1)}…`;
};

const text = (x: number, y: number, size: number, content: string, more = '') =>
  `<text x="${n(x)}" y="${n(y)}" font-size="${size}"${more}>${escapeXml(content)}</text>`;

interface Row {
  readonly goal: Goal & { target: Target; rounds: readonly number[] };
  readonly name: string;
  readonly detail: string;
}

interface Axis {
  readonly x: (value: number) => number;
  readonly ticks: ReadonlyArray<{ value: number; label: string }>;
  readonly show: (value: number) => string;
}

const clamp = (x: number) => Math.min(PLOT_X + PLOT_WIDTH, Math.max(PLOT_X, x));

/** Ratios on a log scale, so that 0.5x and 2x stand as far from 1x; ticks at the powers of two. */
function ratioAxis(values: readonly number[]): Axis {
  const positive = values.filter((value) => value > 0 && Number.isFinite(value));
  const [lo, hi] = [Math.min(...positive, 1) / 1.15, Math.max(...positive, 1) * 1.15];
  const [a, b] = [Math.log(lo), Math.log(hi)];
  const x = (value: number) => clamp(PLOT_X + ((Math.log(value) - a) / (b - a)) * PLOT_WIDTH);
  const powers = Array.from({ length: 15 }, (_, i) => 2 ** (i - 7));
  const fine = [0.6, 0.7, 0.8, 0.9, 1.1, 1.25, 1.5];
  const within = (list: number[]) => list.filter((value) => value >= lo && value <= hi);
  const ticks =
    within(powers).length >= 3 ? within(powers) : within([...powers, ...fine].sort((p, q) => p - q));
  return { x, ticks: ticks.map((value) => ({ value, label: `${value}x` })), show: format.ratio };
}

/** Megabytes from 0, ticks every 50 MB. */
function megabyteAxis(values: readonly number[]): Axis {
  const hi = Math.ceil((Math.max(...values.filter(Number.isFinite), 100) * 1.1) / 50) * 50;
  const x = (value: number) => clamp(PLOT_X + (value / hi) * PLOT_WIDTH);
  const ticks = Array.from({ length: hi / 50 + 1 }, (_, i) => ({ value: i * 50, label: `${i * 50} MB` }));
  return { x, ticks, show: (value) => `${Math.round(value)} MB` };
}

const SYMBOL: Record<Target['bound'], string> = { '>=': '≥', '<=': '≤' };

/** The name, and a line with the target and the absolute figures of the side and its baseline at that level. */
function rowOf(report: Report, goal: Row['goal']): Row {
  const { subject, baseline, connections, basis, bound, value } = goal.target;
  const level = (key: string | undefined): Figures | undefined => {
    const segments = report.runs
      .find((run) => run.key === key)
      ?.segments.filter((figures) => figures.connections === connections);
    return segments === undefined || segments.length === 0 ? undefined : summarize(segments);
  };
  const [side, base] = [level(subject), level(baseline)];
  const pair = (show: (figures: Figures) => string, unit: string) =>
    side === undefined ? [] : [`${show(side)}${base ? ` vs ${show(base)}` : ''} ${unit}`];
  const latency = basis === 'p50' || basis === 'p99' ? basis : undefined;
  const figures = [
    ...(latency ? pair((figures) => format.ms(figures[latency === 'p50' ? 'p50Ms' : 'p99Ms']), 'ms') : []),
    ...pair((figures) => format.rps(figures.cpuUsPerRequest), 'us/req'),
    ...pair((figures) => format.rps(figures.rps), 'req/s'),
  ];
  const hostile = subject.startsWith('hostile-');
  const label = report.runs.find((run) => run.key === subject)?.label ?? subject;
  const name = hostile
    ? `hostile: ${label}`
    : `${subject}${baseline ? ` vs ${baseline}` : ''} c${connections}`;
  const against = baseline === undefined ? ` ${value} MB` : ` ${value}x${hostile ? ' plain' : ''}`;
  return { goal, name, detail: [`${basis} ${SYMBOL[bound]}${against}`, figures.join(', ')].join(' · ') };
}

/** One target: its band on its side of the target line, the rounds' spread, a dot a round, the median's tick. */
function drawRow(row: Row, axis: Axis, y: number): string {
  const { status, rounds, target, text: title, measured } = row.goal;
  const colour = VERDICT_COLOURS[status];
  const middle = y + ROW_HEIGHT / 2;
  const line = axis.x(target.value);
  const [from, to] = target.bound === '>=' ? [line, PLOT_X + PLOT_WIDTH] : [PLOT_X, line];
  const marks =
    rounds.length === 0
      ? [
          text(
            PLOT_X + 10,
            middle + 4,
            12,
            fit(measured, PLOT_WIDTH - 20, 12),
            ` fill="${MUTED}" font-style="italic"`,
          ),
        ]
      : [
          `<line x1="${n(axis.x(Math.min(...rounds)))}" x2="${n(axis.x(Math.max(...rounds)))}" y1="${n(middle)}" y2="${n(middle)}" stroke="${colour}" stroke-width="2" stroke-opacity="0.6"/>`,
          ...rounds.map(
            (value) =>
              `<circle class="round" cx="${n(axis.x(value))}" cy="${n(middle)}" r="5" fill="${colour}" fill-opacity="0.8" stroke="#ffffff" stroke-width="1"/>`,
          ),
          `<rect class="median" x="${n(axis.x(median(rounds)) - 1.5)}" y="${n(middle - 10)}" width="3" height="20" fill="${INK}"/>`,
          text(VALUE_X, y + 17, 14, axis.show(median(rounds)), ` font-weight="bold" fill="${colour}"`),
        ];
  return [
    `<g class="target" data-status="${escapeXml(status)}">`,
    `<title>${escapeXml(`${status}: ${title}; ${measured}`)}</title>`,
    text(LEFT, y + 17, 14, fit(row.name, PLOT_X - LEFT - 12, 14), ` font-weight="bold" fill="${INK}"`),
    text(LEFT, y + 33, 12, fit(row.detail, PLOT_X - LEFT - 12, 12), ` fill="${MUTED}"`),
    `<rect x="${n(from)}" y="${n(y + 4)}" width="${n(to - from)}" height="${ROW_HEIGHT - 8}" fill="${VERDICT_COLOURS.PASS}" fill-opacity="0.1"/>`,
    `<line class="threshold" x1="${n(line)}" x2="${n(line)}" y1="${n(y + 3)}" y2="${n(y + ROW_HEIGHT - 3)}" stroke="${INK}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
    ...marks,
    text(VALUE_X, y + 33, 11, status, ` fill="${colour}"`),
    '</g>',
  ].join('\n');
}

/** A heading, a note, the axis above and below, and a row per target. */
function drawSection(title: string, note: string, rows: readonly Row[], axis: Axis, top: number) {
  const first = top + 68;
  const last = first + rows.length * ROW_HEIGHT;
  const grid = axis.ticks.flatMap(({ value, label }) => {
    const x = axis.x(value);
    const stroke =
      value === 1 ? ` stroke="#8c959f" stroke-width="1.5"` : ` stroke="${GRID}" stroke-width="1"`;
    const tick = (y: number) => text(x, y, 12, label, ` fill="${MUTED}" text-anchor="middle"`);
    return [
      `<line x1="${n(x)}" x2="${n(x)}" y1="${first - 4}" y2="${last + 4}"${stroke}/>`,
      tick(first - 9),
      tick(last + 18),
    ];
  });
  // Every other row on a tinted stripe, under the grid and the marks.
  const stripes = rows.flatMap((_, index) =>
    index % 2 === 1
      ? [
          `<rect x="0" y="${n(first + index * ROW_HEIGHT)}" width="${WIDTH}" height="${ROW_HEIGHT}" fill="#f6f8fa"/>`,
        ]
      : [],
  );
  const body = [
    text(LEFT, top + 20, 16, title, ` font-weight="bold" fill="${INK}"`),
    text(LEFT, top + 38, 12, note, ` fill="${MUTED}"`),
    ...stripes,
    ...grid,
    ...rows.map((row, index) => drawRow(row, axis, first + index * ROW_HEIGHT)),
  ];
  return { body, bottom: last + 30 };
}

/** The legend: each verdict with how many targets have it, then what each mark means. */
function drawLegend(rows: readonly Row[], y: number): string[] {
  let x = LEFT;
  const item = (mark: (x: number, y: number) => string, label: string, at: number) => {
    const drawn = [mark(x, at), text(x + 28, at + 4, 13, label, ` fill="${INK}"`)];
    x += 28 + label.length * 13 * 0.6 + 24;
    return drawn;
  };
  const verdicts = (Object.keys(VERDICT_COLOURS) as Status[]).flatMap((status) => {
    const count = rows.filter((row) => row.goal.status === status).length;
    const dot = (cx: number, cy: number) =>
      `<circle cx="${n(cx + 10)}" cy="${n(cy)}" r="7" fill="${VERDICT_COLOURS[status]}"/>`;
    return count === 0 ? [] : item(dot, `${status}: ${count}`, y);
  });
  x = LEFT;
  const at = y + 26;
  const marks = [
    item((cx, cy) => `<circle cx="${n(cx + 10)}" cy="${n(cy)}" r="5" fill="${MUTED}"/>`, 'a round', at),
    item(
      (rx, cy) => `<rect x="${n(rx + 8.5)}" y="${n(cy - 10)}" width="3" height="20" fill="${INK}"/>`,
      'the median of the rounds',
      at,
    ),
    item(
      (lx, cy) =>
        `<line x1="${n(lx + 10)}" x2="${n(lx + 10)}" y1="${n(cy - 11)}" y2="${n(cy + 11)}" stroke="${INK}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
      'the target',
      at,
    ),
    item(
      (rx, cy) =>
        `<rect x="${n(rx)}" y="${n(cy - 10)}" width="20" height="20" fill="${VERDICT_COLOURS.PASS}" fill-opacity="0.1"/>`,
      'where the target is met',
      at,
    ),
  ];
  return [...verdicts, ...marks.flat()];
}

/**
 * The SVG of a run's judged targets: ratios to a baseline on one log axis, the peak RSS bounds on
 * one in MB. Counts (deliveries, exports) stay in the table: they have no rounds to draw.
 */
export function renderChart(report: Report): string {
  const rows = shownGoals(report)
    .filter((goal): goal is Row['goal'] => goal.target !== undefined && goal.rounds !== undefined)
    .map((goal) => rowOf(report, goal));
  const memory = rows.filter((row) => row.goal.target.basis === 'peak RSS');
  const ratio = rows.filter((row) => row.goal.target.basis !== 'peak RSS');
  const values = (some: readonly Row[]) => some.flatMap((row) => [...row.goal.rounds, row.goal.target.value]);
  const { machine, settings } = report;
  const head = [
    text(LEFT, 32, 20, 'Plant Store bench: each target, round by round', ` font-weight="bold" fill="${INK}"`),
    text(
      LEFT,
      54,
      13,
      `${machine.cpuModel}, ${machine.cores} cores · ${settings.durationSeconds} s per server and level in ${settings.rounds} interleaved rounds · commit ${machine.details.commit ?? '?'}`,
      ` fill="${MUTED}"`,
    ),
    ...drawLegend(rows, 84),
  ];
  let bottom = 132;
  const sections: string[] = [];
  for (const [title, note, some, axis] of [
    [
      'Against the baseline (x, log scale)',
      'Above 1x is better for req/s and for CPU/req (the baseline’s CPU per request over the side’s); below 1x for p50, p99 and us/req.',
      ratio,
      ratioAxis(values(ratio)),
    ],
    [
      'Peak RSS (MB)',
      'The highest resident memory of the server in each round, against an absolute bound.',
      memory,
      megabyteAxis(values(memory)),
    ],
  ] as const) {
    if (some.length === 0) continue;
    const section = drawSection(title, note, some, axis, bottom);
    sections.push(...section.body);
    bottom = section.bottom;
  }
  const height = bottom + 10;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="${FONT}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...head,
    ...sections,
    '</svg>',
    '',
  ].join('\n');
}
