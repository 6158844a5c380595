// `pnpm bench`: the service under load on memory, embedded PGlite and PostgreSQL, beside its
// baselines measured in the same run on the same machine; prints the figures and their ratios,
// writes bench/results/latest.json and BENCHMARKS.md. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { removeBenchContainers } from './docker.ts';
import { describeMachine, formatLoadAverage } from './machine.ts';
import { type BenchOptions, parseOptions, USAGE } from './options.ts';
import { pgbenchVersion } from './pgbench.ts';
import { benchDatabaseUrl, durabilitySettings, ensureBenchDatabase, holdBenchLock } from './postgres.ts';
import { killAllChildren } from './processes.ts';
import { compare, evaluateGoals, renderMarkdown, renderText } from './report.ts';
import {
  type BenchReport,
  POSTGRES_TARGETS,
  TARGET_KEYS,
  TARGET_LABELS,
  type TargetKey,
  type TargetRun,
} from './results.ts';
import { type BenchContext, planParts, segmentSeconds } from './targets.ts';
import { removeTempDirs } from './temp-dirs.ts';

const root = join(import.meta.dirname, '..', '..');
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// Whatever ends the bench, no server it started outlives it, nor any container.
process.on('exit', () => {
  killAllChildren();
  removeBenchContainers();
  removeTempDirs();
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`\n${signal}: stopping the servers`);
    process.exit(130);
  });
}

let options: BenchOptions | 'help' | 'render';
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
  process.exit(2);
}
if (options === 'help') {
  log(USAGE);
  process.exit(0);
}
// What the profiles showed and what was changed: written by people, kept with the figures.
const profileNotesPath = join(root, 'bench', 'PROFILE.md');
const profileNotes = existsSync(profileNotesPath) ? readFileSync(profileNotesPath, 'utf8') : '';
if (options === 'render') {
  const latest = JSON.parse(
    readFileSync(join(root, 'bench', 'results', 'latest.json'), 'utf8'),
  ) as BenchReport;
  // Ratios and verdicts are taken again from the figures, as this version of the bench takes them.
  const runs = latest.runs;
  const connections = latest.settings.connections;
  writeFileSync(
    join(root, 'BENCHMARKS.md'),
    renderMarkdown(
      { ...latest, comparisons: compare(runs), goals: evaluateGoals(runs, connections) },
      profileNotes,
    ),
  );
  log(`wrote ${join(root, 'BENCHMARKS.md')} from bench/results/latest.json`);
  process.exit(0);
}
if (!process.version.startsWith('v24.')) {
  log(`warning: running on Node ${process.version}, not the workspace's Node 24: run it as \`pnpm bench\``);
}

const started = performance.now();
const selected = new Set<TargetKey>(options.only ?? TARGET_KEYS);
const usesPostgres = [...selected].some((key) => POSTGRES_TARGETS.has(key));

log('Plant Store bench: describing the machine...');
const machine = await describeMachine(root);
let postgresUrl: string | undefined;
let postgresProblem: string | undefined;
let postgresVersion: string | undefined;
let postgresSettings: Record<string, string> | undefined;
if (usesPostgres) {
  try {
    postgresVersion = await ensureBenchDatabase(options.adminDatabaseUrl);
    postgresUrl = benchDatabaseUrl(options.adminDatabaseUrl);
    await holdBenchLock(postgresUrl, log);
    postgresSettings = await durabilitySettings(postgresUrl);
  } catch (error) {
    postgresProblem = error instanceof Error ? error.message : String(error);
    log(`PostgreSQL is not usable, its targets will be skipped: ${postgresProblem}`);
  }
}
const pgbench = selected.has('pgbench') ? await pgbenchVersion() : undefined;

const context: BenchContext = {
  root,
  // A fresh random token each run, given to the service and to every baseline alike.
  token: randomBytes(24).toString('base64url'),
  options,
  selected,
  ...(postgresUrl === undefined ? {} : { postgresUrl }),
  ...(postgresProblem === undefined ? {} : { postgresProblem }),
  log,
};

log(
  `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
    `load average ${formatLoadAverage(machine.loadAverageAtStart)}, ` +
    `${Math.round(machine.backgroundCpuPercent)}% busy before the run; ` +
    `${options.durationSeconds} s per server and level in ${options.rounds} interleaved rounds of ` +
    `${segmentSeconds(options).toFixed(2)} s`,
);
// Figures taken while others load the machine are low and scattered; say so before they are read.
const BUSY_BEFORE_PERCENT = 25;
if (machine.backgroundCpuPercent > BUSY_BEFORE_PERCENT) {
  log(
    `warning: the machine was ${Math.round(machine.backgroundCpuPercent)}% busy before the run started: ` +
      'the figures will be noisy and more verdicts UNDECIDED (try again when it is idle, or use more --rounds)',
  );
}
const measured: TargetRun[] = [];
for (const part of planParts(context)) {
  log(`\n== ${part.title}`);
  let added: TargetRun[];
  try {
    added = await part.run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    added = part.keys.map((key) => ({
      key,
      label: TARGET_LABELS[key],
      levels: [],
      notes: [],
      error: message,
    }));
  }
  for (const run of added) if (run.error !== undefined) log(`  FAILED (${run.label}): ${run.error}`);
  measured.push(...added);
}
// In the order of TARGET_KEYS, whatever order the parts ran in.
const runs = TARGET_KEYS.flatMap((key) => measured.filter((run) => run.key === key));

const report: BenchReport = {
  machine: {
    ...machine,
    ...(postgresVersion === undefined ? {} : { postgres: postgresVersion }),
    ...(postgresSettings === undefined ? {} : { postgresSettings }),
    ...(pgbench === undefined ? {} : { pgbench }),
  },
  settings: {
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    rounds: options.rounds,
    segmentSeconds: segmentSeconds(options),
    connections: options.connections,
    ...(options.only ? { only: options.only } : {}),
    seedRows: options.seedRows,
    largeSeedRows: options.largeSeedRows,
  },
  runs,
  comparisons: compare(runs),
  goals: evaluateGoals(runs, options.connections),
  wallSeconds: (performance.now() - started) / 1000,
  loadAverageAtEnd: loadavg(),
};

log(`\n${renderText(report)}\n`);
if (options.write) {
  const resultsDir = join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  // A partial run is not a full set of figures: it leaves the last full run's files as they are.
  const jsonPath = join(resultsDir, options.only ? 'partial.json' : 'latest.json');
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${jsonPath}`);
  if (!options.only) {
    writeFileSync(join(root, 'BENCHMARKS.md'), renderMarkdown(report, profileNotes));
    log(`wrote ${join(root, 'BENCHMARKS.md')}`);
  }
}
log(`done in ${Math.round(report.wallSeconds)} s`);
process.exit(0);
