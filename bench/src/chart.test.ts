// BENCHMARKS.md's picture is read instead of the table: it must parse as XML anywhere, draw each
// target in its verdict's colour and put each median where its figure says.
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { renderChart, VERDICT_COLOURS } from './chart.ts';
import { evaluateGoals, type Figures, type Report, TARGETS, type TargetRun } from './report.ts';

interface Element {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: Element[];
  text: string;
}

/** A strict XML parser: any well-formedness error (an unescaped < or &, a tag left open) throws. */
function parse(xml: string): Element {
  const document: Element = { name: '#document', attributes: {}, children: [], text: '' };
  const open = [document];
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const element: Element = { name: tag.name, attributes: { ...tag.attributes }, children: [], text: '' };
    open.at(-1)?.children.push(element);
    open.push(element);
  });
  parser.on('text', (text) => {
    const current = open.at(-1);
    if (current) current.text += text;
  });
  parser.on('closetag', () => open.pop());
  parser.write(xml).close();
  const [root] = document.children;
  if (root === undefined) throw new Error('no root element');
  return root;
}

const descendants = (element: Element): Element[] =>
  element.children.flatMap((child) => [child, ...descendants(child)]);
const find = (element: Element, name: string, className?: string) =>
  descendants(element).filter(
    (child) => child.name === name && (className === undefined || child.attributes.class === className),
  );
const textOf = (element: Element) =>
  [element.text, ...descendants(element).map((child) => child.text)].join('');

/** A subject and its baseline at one level, loaded baseline, subject, baseline, ... as runGroup does. */
function pair(subject: string, baseline: string, connections: number, cpu: number[], label = subject) {
  const segment = (cpuUsPerRequest: number, seq: number, round: number): Figures => ({
    connections,
    seconds: 3,
    rps: 1e6 / cpuUsPerRequest,
    ok: 3000,
    errors: 0,
    p50Ms: 1,
    p99Ms: 2,
    cpuUsPerRequest,
    peakRssBytes: 100 * 2 ** 20,
    seq,
    round,
  });
  const base: TargetRun = { key: baseline, label: baseline, baselines: [], segments: [], notes: [] };
  const side: TargetRun = { key: subject, label, baselines: [baseline], segments: [], notes: [] };
  cpu.forEach((us, index) => {
    base.segments.push(segment(100, 2 * index, index + 1));
    side.segments.push(segment(us, 2 * index + 1, index + 1));
  });
  base.segments.push({ ...segment(100, 2 * cpu.length, cpu.length + 1), closing: true });
  return [base, side];
}

const report = (runs: TargetRun[]): Report => ({
  machine: {
    cpuModel: 'AMD EPYC',
    cores: 2,
    loadAverageAtStart: [1, 1, 1],
    busyPercent: 3,
    details: { commit: 'abc1234' },
  },
  settings: { durationSeconds: 10, rounds: 3, connections: [16] },
  runs,
  wallSeconds: 100,
  loadAverageAtEnd: [1, 1, 1],
});

// CPU/req is the baseline's 100 us over the side's: 80 us is 1.25x, 250 us 0.4x.
const runs = [
  ...pair('memory', 'koa', 16, [80, 90, 70]),
  ...pair('webhook-on', 'webhook-off', 64, [250, 260, 240]),
  ...pair('trace-10-memory', 'trace-off-memory', 16, [110, 125, 130]),
];
const goals = evaluateGoals(runs);
const svg = parse(renderChart(report(runs)));
const groups = find(svg, 'g', 'target');
const groupOf = (text: string) => {
  const found = groups.find((group) => find(group, 'title')[0]?.text.includes(text));
  if (found === undefined) throw new Error(`no group for ${text}`);
  return found;
};

describe('the picture of a run', () => {
  it('is one SVG document with a title, and one group for each target that has rounds to draw', () => {
    expect(svg.name).toBe('svg');
    expect(svg.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(textOf(svg)).toContain('Plant Store bench');
    const drawn = goals.filter((goal) => goal.rounds !== undefined);
    expect(groups).toHaveLength(drawn.length);
    expect(drawn.length).toBe(TARGETS.length);
  });

  it('draws each target in its verdict’s colour, a dot a round, and says the verdict in words', () => {
    const cases = [
      ['memory vs koa c16', 'PASS', 3],
      ['webhook-on vs webhook-off c64', 'FAIL', 3],
      ['trace-10-memory vs trace-off-memory c16', 'UNDECIDED', 3],
      ['postgres vs kysely c1', 'NOT MEASURED', 0],
    ] as const;
    for (const [text, status, rounds] of cases) {
      const group = groupOf(text);
      expect(goals.find((goal) => goal.text.startsWith(text))?.status).toBe(status);
      expect(group.attributes['data-status']).toBe(status);
      const dots = find(group, 'circle', 'round');
      expect(dots).toHaveLength(rounds);
      for (const dot of dots) expect(dot.attributes.fill).toBe(VERDICT_COLOURS[status]);
      expect(textOf(group)).toContain(status);
    }
    expect(textOf(groupOf('postgres vs kysely c1'))).toContain('not measured in this run');
  });

  it('puts the medians in the order of their figures, each on its side of its target line', () => {
    const at = (text: string) => {
      const group = groupOf(text);
      const [median] = find(group, 'rect', 'median');
      const [threshold] = find(group, 'line', 'threshold');
      return { median: Number(median?.attributes.x), threshold: Number(threshold?.attributes.x1) };
    };
    // Medians 0.4x (webhook), 0.8x (traces), 1.25x (memory), all on one axis.
    const [webhook, traces, memory] = [
      at('webhook-on vs webhook-off c64'),
      at('trace-10-memory vs trace-off-memory c16'),
      at('memory vs koa c16'),
    ];
    expect(webhook.median).toBeLessThan(traces.median);
    expect(traces.median).toBeLessThan(memory.median);
    expect(webhook.median).toBeLessThan(webhook.threshold);
    expect(memory.median).toBeGreaterThan(memory.threshold);
    expect(textOf(groupOf('memory vs koa c16'))).toContain('1.25x');
    expect(textOf(groupOf('memory vs koa c16'))).toContain('80 vs 100 us/req, 12,500 vs 10,000 req/s');
  });

  it('escapes what a label may hold (<, &, ") and reads it back whole', () => {
    const label = 'a <script> & "quoted" body';
    const hostile = pair('hostile-odd', 'plain', 4, [150, 160, 170], label);
    const rendered = renderChart(report(hostile));
    expect(rendered).not.toContain(label);
    const group = find(parse(rendered), 'g', 'target').find((g) => textOf(g).includes(`hostile: ${label}`));
    expect(group?.attributes['data-status']).toBe('PASS');
    expect(find(group as Element, 'title')[0]?.text).toContain(`hostile body, ${label}: CPU/req <= 3x`);
  });

  it('draws peak RSS on an axis of its own, in MB', () => {
    const rss = pair('postgres', 'kysely', 64, [80, 80, 80]);
    const group = find(parse(renderChart(report(rss))), 'g', 'target').find((g) =>
      textOf(g).includes('postgres c64'),
    );
    expect(group?.attributes['data-status']).toBe('PASS');
    expect(textOf(group as Element)).toContain('100 MB');
    expect(textOf(group as Element)).toContain('peak RSS ≤ 150 MB');
  });
});
