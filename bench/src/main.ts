// `pnpm bench`: the service against its baselines on the same stack, measured in one run on one
// machine in interleaved rounds; prints the figures and the verdicts, writes bench/results/latest.json,
// BENCHMARKS.md and its picture. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderChart } from './chart.ts';
import { openBenchDatabase } from './database.ts';
import { type Context, cleanUp, machineCpu, type Options, type Part } from './harness.ts';
import { embeddedPart } from './parts/embedded.ts';
import { growthPart } from './parts/growth.ts';
import { hostilePart } from './parts/hostile.ts';
import { removeContainers } from './parts/image.ts';
import { memoryPart } from './parts/memory.ts';
import { operationsPart } from './parts/operations.ts';
import { pgbenchVersion, postgresPart } from './parts/postgres.ts';
import { tracingPart } from './parts/tracing.ts';
import { webhookPart } from './parts/webhook.ts';
import { CHART_PATH, type Report, renderMarkdown, renderText, type TargetRun } from './report.ts';

const PARTS: readonly Part[] = [
  memoryPart,
  operationsPart,
  embeddedPart,
  postgresPart,
  growthPart,
  webhookPart,
  tracingPart,
  hostilePart,
];
const USAGE = `Usage: pnpm bench [options]

  --duration <s>        seconds of load on each server at each level, shared by the rounds (default 10)
  --quick               3 s per server and level and a 2 s warm-up
  --rounds <n>          interleaved rounds, at least 3 (default 3)
  --connections <list>  concurrency levels (default 1,16,64)
  --only <list>         parts or sides of them; figures to bench/results/partial.json, BENCHMARKS.md left alone:
${PARTS.map((part) => `                          ${part.name}${part.keys.length > 0 ? `: ${part.keys.join(', ')}` : ''}`).join('\n')}
  --no-write            print only
  --render              measure nothing: write BENCHMARKS.md and its picture again from bench/results/latest.json

Environment: BENCH_DATABASE_URL, a PostgreSQL server on this machine (default
postgres://postgres@127.0.0.1:5432/postgres); the bench uses its own database plant_store_bench there.`;

const root = join(import.meta.dirname, '..', '..');
const log = (line: string) => process.stdout.write(`${line}\n`);
const latestPath = join(root, 'bench', 'results', 'latest.json');

/** BENCHMARKS.md and the picture it shows, always together, so that neither shows another run's figures. */
function writeBenchmarks(report: Report) {
  writeFileSync(join(root, 'BENCHMARKS.md'), renderMarkdown(report));
  writeFileSync(join(root, CHART_PATH), renderChart(report));
}

function parseOptions(): Options & { write: boolean; render: boolean } {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '1,16,64' },
      only: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      render: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, text: string) => {
    const value = Number(text);
    if (!(value > 0)) throw new Error(`${name} must be a positive number, not "${text}"`);
    return value;
  };
  const rounds = Math.round(positive('--rounds', values.rounds));
  // Fewer rounds give no spread to judge on.
  if (rounds < 3) throw new Error(`--rounds must be at least 3, not ${values.rounds}`);
  return {
    durationSeconds:
      values.duration === undefined ? (values.quick ? 3 : 10) : positive('--duration', values.duration),
    // Until a service's code settles (V8's tiers, a traced one's first exports), a round measures its
    // warm-up (bench/PROFILE.md, "The bench itself").
    warmupSeconds: values.quick ? 2 : 8,
    levelWarmupSeconds: values.quick ? 0.5 : 1,
    rounds,
    connections: values.connections.split(',').map((text) => Math.round(positive('--connections', text))),
    ...(values.only === undefined ? {} : { only: values.only.split(',').map((name) => name.trim()) }),
    write: !values['no-write'],
    render: values.render,
  };
}

let options: ReturnType<typeof parseOptions>;
try {
  options = parseOptions();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
  process.exit(2);
}
if (options.render) {
  const latest = JSON.parse(readFileSync(latestPath, 'utf8'));
  if (latest.machine?.details === undefined) {
    process.stderr.write(
      'bench/results/latest.json is from an older bench: a full pnpm bench writes it anew\n',
    );
    process.exit(2);
  }
  writeBenchmarks(latest);
  log(`wrote BENCHMARKS.md and ${CHART_PATH} from bench/results/latest.json`);
  process.exit(0);
}

// Whatever ends the bench, no server or container it started outlives it.
process.on('exit', () => {
  cleanUp();
  removeContainers();
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    log(`\n${signal}: stopping the servers`);
    process.exit(130);
  });

const started = performance.now();
const version = (path: string) => {
  try {
    return JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')).version as string;
  } catch {
    return 'unknown';
  }
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const chosen = (part: Part) =>
  options.only === undefined || options.only.some((name) => name === part.name || part.keys.includes(name));
const unknown = options.only?.filter(
  (name) => !PARTS.some((part) => part.name === name || part.keys.includes(name)),
);
if (unknown?.length) {
  process.stderr.write(`--only: unknown ${unknown.join(', ')}\n\n${USAGE}\n`);
  process.exit(2);
}
const parts = PARTS.filter(chosen);
let postgres: Context['postgres'] = { problem: 'not used by this run' };
let postgresSettings = '-';
if (parts.some((part) => part.usesPostgres)) {
  try {
    const database = await openBenchDatabase(
      process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      log,
    );
    postgres = { url: database.url };
    postgresSettings = database.settings;
  } catch (error) {
    postgres = { problem: error instanceof Error ? error.message : String(error) };
    log(`PostgreSQL is not usable, its parts will fail: ${postgres.problem}`);
  }
}
const before = machineCpu();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const after = machineCpu();
const modules = (dir: string, names: string[]) =>
  names.map((name) => `${name} ${version(`${dir}/node_modules/${name}`)}`);
const machine: Report['machine'] = {
  cpuModel:
    /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? '?',
  cores: cpus().length,
  loadAverageAtStart: loadavg(),
  busyPercent: ((after.busy - before.busy) / (after.total - before.total)) * 100,
  details: {
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    OS: `${process.platform} ${release()}`,
    Node: process.version,
    PostgreSQL: postgresSettings,
    pgbench: (await pgbenchVersion()) ?? 'not found',
    packages: modules('bench', [
      'autocannon',
      'koa',
      '@koa/router',
      'kysely',
      'pg',
      '@electric-sql/pglite',
      'json-server',
    ]).join(', '),
    commit: `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') === '' ? '' : ' (with uncommitted changes)'}`,
  },
};
const context: Context = { root, token: randomBytes(24).toString('base64url'), options, postgres, log };
log(
  `Plant Store bench: ${machine.cpuModel}, ${machine.cores} cores, load average ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}, ` +
    `${Math.round(machine.busyPercent)}% busy; ${options.durationSeconds} s per server and level in ${options.rounds} rounds`,
);
// Figures taken while others load the machine are low and scattered: say so before they are read.
if (machine.busyPercent > 25)
  log('warning: the machine is busy: more verdicts will be UNDECIDED (more --rounds, or later)');

const runs: TargetRun[] = [];
for (const part of parts) {
  log(`\n== ${part.name}`);
  try {
    runs.push(...(await part.run(context)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  FAILED: ${message}`);
    runs.push({ key: part.name, label: part.name, baselines: [], segments: [], notes: [], error: message });
  }
}

const report: Report = {
  machine,
  settings: {
    durationSeconds: options.durationSeconds,
    rounds: options.rounds,
    connections: options.connections,
    ...(options.only ? { only: options.only } : {}),
  },
  runs,
  wallSeconds: (performance.now() - started) / 1000,
  loadAverageAtEnd: loadavg(),
};
log(`\n${renderText(report)}\n`);
if (options.write) {
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  // A partial run is no full set of figures: it leaves the last full run's files alone.
  writeFileSync(
    options.only ? join(root, 'bench', 'results', 'partial.json') : latestPath,
    `${JSON.stringify(report, null, 2)}\n`,
  );
  if (!options.only) writeBenchmarks(report);
  log(
    `wrote ${options.only ? 'bench/results/partial.json' : `bench/results/latest.json, ${CHART_PATH} and BENCHMARKS.md`}`,
  );
}
log(`done in ${Math.round(report.wallSeconds)} s`);
process.exit(0);
