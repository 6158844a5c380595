import { parseArgs } from 'node:util';
import { TARGET_KEYS, type TargetKey } from './results.ts';

export interface BenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** Interleaved rounds of every comparison, at least MIN_ROUNDS (see bench/README.md). */
  readonly rounds: number;
  readonly connections: readonly number[];
  /** Absent: every target, and the run writes latest.json and BENCHMARKS.md. */
  readonly only?: readonly TargetKey[];
  readonly write: boolean;
  readonly adminDatabaseUrl: string;
  /** Plants stored in the growth target's table before its load. */
  readonly seedRows: number;
  /** Plants stored in the growth-10m table (kept between runs: seeding it takes about a minute). */
  readonly largeSeedRows: number;
}

export const USAGE = `Usage: pnpm bench [options]

  --duration <s>        seconds of load on each server at each level, shared by the rounds
                        (default 10: 3 rounds of 3.3 s)
  --quick               3 s per server and level (1 s segments) and a 1 s warm-up
  --rounds <n>          interleaved rounds of every comparison (default 3, at least 3): the
                        servers of a comparison are up at once and loaded in turn, A, B, A, B, ...
  --connections <list>  concurrency levels (default 1,16,64)
  --only <list>         run only these targets: ${TARGET_KEYS.join(', ')}
                        (figures go to bench/results/partial.json; BENCHMARKS.md is left alone)
  --no-write            print only, write no file
  --render              measure nothing: write BENCHMARKS.md again from bench/results/latest.json
                        (after editing bench/PROFILE.md)
  -h, --help

Environment: BENCH_DATABASE_URL, a PostgreSQL server on this machine
(default postgres://postgres@127.0.0.1:5432/postgres); the bench creates and uses its own
database plant_store_bench there.`;

/** At least this many interleaved rounds per comparison: fewer gives no spread to judge on. */
export const MIN_ROUNDS = 3;

function atLeastMinRounds(text: string): number {
  const rounds = Math.round(positiveNumber('--rounds', text));
  if (rounds < MIN_ROUNDS) throw new Error(`--rounds must be at least ${MIN_ROUNDS}, not ${text}`);
  return rounds;
}

function positiveNumber(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, not "${text}"`);
  return value;
}

export function parseOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): BenchOptions | 'help' | 'render' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string' },
      quick: { type: 'boolean', default: false },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      only: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      render: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (values.render) return 'render';
  const durationSeconds =
    values.duration !== undefined ? positiveNumber('--duration', values.duration) : values.quick ? 3 : 10;
  const connections = (values.connections ?? '1,16,64')
    .split(',')
    .map((text) => Math.round(positiveNumber('--connections', text)));
  let only: TargetKey[] | undefined;
  if (values.only !== undefined) {
    only = values.only.split(',').map((name) => {
      const key = TARGET_KEYS.find((known) => known === name.trim());
      if (key === undefined)
        throw new Error(`--only: unknown target "${name}"; known: ${TARGET_KEYS.join(', ')}`);
      return key;
    });
  }
  return {
    durationSeconds,
    warmupSeconds: values.quick ? 1 : 2,
    rounds: values.rounds === undefined ? MIN_ROUNDS : atLeastMinRounds(values.rounds),
    connections,
    ...(only ? { only } : {}),
    write: !values['no-write'],
    adminDatabaseUrl: env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    seedRows: 1_000_000,
    largeSeedRows: 10_000_000,
  };
}
