// The shape of a run's figures, as bench/results/latest.json holds them.
import type { LoadResult } from './load.ts';
import type { MachineInfo } from './machine.ts';

/** The targets that need the PostgreSQL server (the bench's own database, and its lock). */
const POSTGRES_TARGET_KEYS = [
  'pgbench',
  'bare-pg',
  'postgres-single',
  'postgres',
  'growth',
  'growth-10m',
  'image',
  'growth-get-10k',
  'growth-get-1m',
  'growth-get-10m',
  'growth-list-10k',
  'growth-list-1m',
  'growth-list-10m',
  'pg-get',
  'pg-list',
  'webhook',
] as const;

export const TARGET_KEYS = [
  'bare',
  'koa',
  'memory',
  'json-server',
  'embedded',
  ...POSTGRES_TARGET_KEYS,
  'hostile',
  'jwt-es256',
  'jwt-rs256',
] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];
export const POSTGRES_TARGETS: ReadonlySet<TargetKey> = new Set(POSTGRES_TARGET_KEYS);

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
  'growth-10m': 'service, PostgreSQL, 10M rows',
  image: 'api image (container), PostgreSQL',
  'growth-get-10k': 'service, PostgreSQL, GET /plants/{id}, 10k rows',
  'growth-get-1m': 'service, PostgreSQL, GET /plants/{id}, 1M rows',
  'growth-get-10m': 'service, PostgreSQL, GET /plants/{id}, 10M rows',
  'growth-list-10k': 'service, PostgreSQL, GET /plants?limit=100, 10k rows',
  'growth-list-1m': 'service, PostgreSQL, GET /plants?limit=100, 1M rows',
  'growth-list-10m': 'service, PostgreSQL, GET /plants?limit=100, 10M rows',
  'pg-get': 'service, PostgreSQL, GET /plants/{id}',
  'pg-list': 'service, PostgreSQL, GET /plants?limit=100',
  webhook: 'service, PostgreSQL, webhook on vs off',
  hostile: 'service, memory:, hostile bodies',
  'jwt-es256': 'service, memory:, ES256 JWT',
  'jwt-rs256': 'service, memory:, RS256 JWT',
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
  'growth-10m': 'postgres',
  image: 'postgres',
  'growth-get-1m': 'growth-get-10k',
  'growth-get-10m': 'growth-get-10k',
  'growth-list-1m': 'growth-list-10k',
  'growth-list-10m': 'growth-list-10k',
  'jwt-es256': 'memory',
  'jwt-rs256': 'memory',
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
  ['growth-10m', 'postgres'],
  ['image', 'postgres'],
  ['growth-get-1m', 'growth-get-10k'],
  ['growth-get-10m', 'growth-get-10k'],
  ['growth-list-1m', 'growth-list-10k'],
  ['growth-list-10m', 'growth-list-10k'],
  ['jwt-es256', 'memory'],
  ['jwt-rs256', 'memory'],
];

export interface LevelFigures extends LoadResult {
  /** Peak resident memory of the server process during this level, in bytes (absent for pgbench). */
  readonly peakRssBytes?: number;
  /** CPU the server process used, in % of one core. */
  readonly serverCpuPercent?: number;
  /** The server process's CPU time per answered request, in microseconds. */
  readonly cpuUsPerRequest?: number;
  /** CPU the whole machine used, in % of all its cores (the server, the database, the load, and others' work). */
  readonly machineCpuPercent: number;
  /** The interleaved round this segment belongs to (1..rounds; rounds + 1 is the closing one); absent in a level's summary. */
  readonly round?: number;
  /** A baseline's closing segment, after the last round: only the "after" of that round's ratios. */
  readonly closing?: boolean;
}

/** One hostile body shape: the server's CPU per request, and its ratio to the plain body, round by round. */
export interface HostileShapeFigures {
  readonly key: string;
  readonly label: string;
  /** What the service answered it. */
  readonly status: number;
  /** Server CPU time per answered request, in microseconds, each round. */
  readonly cpuUsPerRequest: number[];
  /** CPU per request as a ratio to the plain body's, measured just before and after it, each round. */
  readonly ratios: number[];
}

/** The "hostile bodies" section (bench/src/hostile-bodies.ts). */
export interface HostileBodiesFigures {
  /** The size of every body, plain and hostile, in bytes. */
  readonly bytes: number;
  readonly connections: number;
  readonly segmentSeconds: number;
  readonly plainLabel: string;
  /** Server CPU time per request of the plain body, each time it was measured. */
  readonly plainCpuUsPerRequest: number[];
  readonly shapes: HostileShapeFigures[];
}

/**
 * A read on PostgreSQL, the service against the bare node:http + pg server doing the same SELECT
 * (bench/src/reads.ts): both up at once on the same seeded table, loaded in turn, round by round.
 */
export interface ReadFigures {
  /** What each request is, e.g. `GET /plants/{id}`. */
  readonly request: string;
  /** The plants in the table, all stored before the timed part. */
  readonly seeded: number;
  readonly connections: number;
  readonly segmentSeconds: number;
  /** Server CPU time per answered request, in microseconds, each time the bare server was measured. */
  readonly bareCpuUsPerRequest: number[];
  /** The same for the service, each round. */
  readonly serviceCpuUsPerRequest: number[];
  /** 2xx answers per second, each time the bare server was measured. */
  readonly bareRequestsPerSecond: number[];
  readonly serviceRequestsPerSecond: number[];
  /** Service CPU per request over the bare server's, measured just before and after it, each round (above 1: the service costs more). */
  readonly cpuRatios: number[];
  /** Service req/s over the bare server's, measured just before and after it, each round (below 1: the service is slower). */
  readonly rpsRatios: number[];
}

/**
 * The webhook on creation (bench/src/webhook.ts): `POST /plants` on PostgreSQL, the service with the
 * webhook on (delivering to a bare node:http receiver) against the same service with it off, both
 * up at once on the same database, loaded in turn, round by round.
 */
export interface WebhookFigures {
  readonly connections: number;
  readonly segmentSeconds: number;
  /** How long the bench waits, after an "on" segment, for every delivery before it calls it a failure. */
  readonly drainLimitSeconds: number;
  /** Service CPU time per answered request with the webhook off, each time it was measured. */
  readonly offCpuUsPerRequest: number[];
  /** With it on, during the segment only, each round. */
  readonly onCpuUsPerRequest: number[];
  /** With it on, from the segment's start until its last delivery was received: delivering included. */
  readonly onCpuUsPerRequestDrained: number[];
  /** 2xx answers per second, each time "off" was measured. */
  readonly offRequestsPerSecond: number[];
  readonly onRequestsPerSecond: number[];
  /** "On" req/s over the mean of the "off" segments just before and after it, each round (below 1: slower). */
  readonly rpsRatios: number[];
  /** "On" CPU per request, delivering included, over the mean of "off" just before and after it, each round. */
  readonly cpuRatios: number[];
  /** Plants the "on" service created in each round's segment (its own count: /metrics). */
  readonly created: number[];
  /** Seconds from the end of each "on" segment until the receiver had every delivery of it. */
  readonly lagSeconds: number[];
  /** Requests the receiver got in all (every delivery, redeliveries included) and distinct webhook-ids. */
  readonly receivedRequests: number;
  readonly receivedDistinct: number;
  /** Plants the "on" service created in all, warm-up included: what the receiver should have got. */
  readonly expectedDeliveries: number;
  /** Deliveries still missing when the wait ran out (0: every delivery arrived in time). */
  readonly shortfall: number;
}

/**
 * The api's Docker image (bench/src/docker.ts): what was run, and its memory read when the load was
 * over, before the container was stopped.
 */
export interface ContainerFigures {
  /** The tag and the image id run. */
  readonly image: string;
  readonly imageId: string;
  /** The base image it was built on (the official Node 24 image, or the local stand-in). */
  readonly baseImage: string;
  /** How long the build took in this run, and whether it left the image as it was (nothing had changed). */
  readonly buildSeconds: number;
  readonly buildUnchanged: boolean;
  /** VmRSS of the container's main process (node) at the end. */
  rssAtEndBytes?: number;
  /**
   * The peak of the container's memory cgroup over its whole life, and the file read (memory.peak, or
   * cgroup v1's memory.max_usage_in_bytes): what the kernel charged it, its page cache included, but
   * not file pages another cgroup read first (the node binary's, often), which VmRSS counts.
   */
  cgroupPeakBytes?: number;
  cgroupPeakSource?: string;
}

export interface TargetRun {
  readonly key: TargetKey;
  readonly label: string;
  /** Each level's summary over its segments: medians (errors and requests added up, peak RSS the highest). */
  readonly levels: LevelFigures[];
  /** Every segment of load, in the order measured, each with its round: what the ratios are taken from. */
  segments?: LevelFigures[];
  /** The hostile bodies section, for its target. */
  hostile?: HostileBodiesFigures;
  /** The reads on PostgreSQL, for their targets. */
  reads?: ReadFigures;
  /** The webhook on vs off, for its target. */
  webhook?: WebhookFigures;
  /** The api's image, for its target. */
  container?: ContainerFigures;
  readonly notes: string[];
  /** Why the target could not be measured (or stopped part-way). */
  error?: string;
}

/**
 * One level of a comparison, round by round: each round's subject segment over the mean of its
 * baseline's segments just before and after it (bench/src/interleave.ts).
 */
export interface LevelRatios {
  readonly connections: number;
  /** req/s, subject over baseline (above 1: the subject answers more). */
  readonly rps: number[];
  /** CPU per request, the baseline's over the subject's (above 1: the subject costs less; what req/s would be if each had a core of its own). */
  readonly cpu: number[];
  /** p50 and p99 latency, subject over baseline (below 1: the subject is faster). */
  readonly p50: number[];
  readonly p99: number[];
}

export interface Comparison {
  readonly subject: TargetKey;
  readonly baseline: TargetKey;
  readonly levels: LevelRatios[];
}

/** UNDECIDED: the rounds' figures fall on both sides of the target. */
export type GoalStatus = 'PASS' | 'FAIL' | 'UNDECIDED' | 'NOT MEASURED' | 'INFO';

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly status: GoalStatus;
  /** The figure the verdict is taken on: CPU/req, req/s, p50, p99, peak RSS. */
  readonly basis?: string;
}

export interface BenchReport {
  readonly machine: MachineInfo;
  readonly settings: {
    readonly durationSeconds: number;
    readonly warmupSeconds: number;
    /** Interleaved rounds of every comparison. */
    readonly rounds: number;
    /** Seconds of each segment of the main comparisons (durationSeconds / rounds, at least 1). */
    readonly segmentSeconds?: number;
    readonly connections: readonly number[];
    readonly only?: readonly TargetKey[];
    /** Plants in the growth target's table (1,000,000). */
    readonly seedRows: number;
    /** Plants in the 10,000,000-row growth table (absent in runs from before it). */
    readonly largeSeedRows?: number;
  };
  readonly runs: TargetRun[];
  readonly comparisons: Comparison[];
  readonly goals: Goal[];
  readonly wallSeconds: number;
  /** The load average (1, 5, 15 min) when the run ended; the one at its start is in `machine`. */
  readonly loadAverageAtEnd?: readonly number[];
}
