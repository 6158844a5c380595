// The shape of a run's figures, as bench/results/latest.json holds them.
import type { LoadResult } from './load.ts';
import type { MachineInfo } from './machine.ts';

export const TARGET_KEYS = [
  'bare',
  'koa',
  'memory',
  'json-server',
  'embedded',
  'pgbench',
  'bare-pg',
  'postgres-single',
  'postgres',
  'growth',
] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

export const TARGET_LABELS: Readonly<Record<TargetKey, string>> = {
  bare: 'baseline: bare node:http',
  koa: 'baseline: koa minimal',
  memory: 'service, memory:',
  'json-server': 'baseline: json-server',
  embedded: 'service, embedded PGlite',
  pgbench: 'baseline: pgbench INSERT',
  'bare-pg': 'baseline: node:http + pg',
  'postgres-single': 'service, PostgreSQL, GROUP_COMMIT=off',
  postgres: 'service, PostgreSQL',
  growth: 'service, PostgreSQL, 1M rows',
};

/** The baseline each target's figures are printed as a ratio to. */
export const PRIMARY_BASELINE: Readonly<Partial<Record<TargetKey, TargetKey>>> = {
  koa: 'bare',
  memory: 'koa',
  embedded: 'json-server',
  'bare-pg': 'pgbench',
  'postgres-single': 'bare-pg',
  postgres: 'bare-pg',
  growth: 'postgres',
};

/** Every ratio the run reports, the primary ones first. */
export const COMPARISONS: ReadonlyArray<readonly [subject: TargetKey, baseline: TargetKey]> = [
  ['koa', 'bare'],
  ['memory', 'koa'],
  ['memory', 'bare'],
  ['embedded', 'json-server'],
  ['bare-pg', 'pgbench'],
  ['postgres-single', 'bare-pg'],
  ['postgres', 'bare-pg'],
  ['postgres', 'postgres-single'],
  ['postgres', 'pgbench'],
  ['growth', 'postgres'],
];

export interface LevelFigures extends LoadResult {
  /** Peak resident memory of the server process during this level, in bytes (absent for pgbench). */
  readonly peakRssBytes?: number;
  /** CPU the server process used, in % of one core. */
  readonly serverCpuPercent?: number;
  /** CPU the whole machine used, in % of all its cores (the server, the database, the load, and others' work). */
  readonly machineCpuPercent: number;
}

export interface TargetRun {
  readonly key: TargetKey;
  readonly label: string;
  readonly levels: LevelFigures[];
  readonly notes: string[];
  /** Why the target could not be measured (or stopped part-way). */
  error?: string;
}

export interface Ratio {
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p99: number;
}

export interface Comparison {
  readonly subject: TargetKey;
  readonly baseline: TargetKey;
  readonly ratios: Ratio[];
}

export type GoalStatus = 'PASS' | 'FAIL' | 'NOT MEASURED' | 'INFO';

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly status: GoalStatus;
}

export interface BenchReport {
  readonly machine: MachineInfo;
  readonly settings: {
    readonly durationSeconds: number;
    readonly warmupSeconds: number;
    readonly rounds: number;
    readonly connections: readonly number[];
    readonly only?: readonly TargetKey[];
    readonly seedRows: number;
  };
  /** The best round of each target and level. */
  readonly runs: TargetRun[];
  /** Every round as measured, when there was more than one. */
  readonly rounds?: TargetRun[][];
  readonly comparisons: Comparison[];
  readonly goals: Goal[];
  readonly wallSeconds: number;
}
