// How each target is started and measured. Every server runs as a child process on an ephemeral
// loopback port with the same keep-alive load, the same payloads and the same token.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_IMAGE,
  buildApiImage,
  engineProblem,
  type RunningContainer,
  removeOrphanContainers,
  startContainer,
} from './docker.ts';
import { measureHostileBodies } from './hostile-bodies.ts';
import { interleave } from './interleave.ts';
import { BENCH_AUDIENCE, startBenchProvider } from './jwt-provider.ts';
import { type LoadResult, nextInt64Body, nextSafeIntegerBody, runLoad } from './load.ts';
import type { BenchOptions } from './options.ts';
import { runPgbench } from './pgbench.ts';
import {
  checkpoint,
  countRows,
  createPgbenchTable,
  createSchema,
  GROWTH_10M_SCHEMA,
  GROWTH_SCHEMA,
  GROWTH_SMALL_SCHEMA,
  type GrowthSample,
  prepareGrowthTable,
  resetBenchDatabase,
  sampleGrowthIds,
  seedReadPlants,
  withSearchPath,
} from './postgres.ts';
import {
  machineCpuSeconds,
  PeakRss,
  processCpuSeconds,
  type RunningChild,
  type ServerSpec,
  startServer,
} from './processes.ts';
import { measureReads } from './reads.ts';
import { format, summarizeSegments } from './report.ts';
import { COMPARISONS, type LevelFigures, TARGET_LABELS, type TargetKey, type TargetRun } from './results.ts';
import { makeTempDir } from './temp-dirs.ts';
import { measureWebhook } from './webhook.ts';

export interface BenchContext {
  readonly root: string;
  readonly token: string;
  readonly options: BenchOptions;
  readonly selected: ReadonlySet<TargetKey>;
  /** The bench database, when the PostgreSQL server answered. */
  readonly postgresUrl?: string;
  readonly postgresProblem?: string;
  readonly log: (line: string) => void;
}

function serverEnv(context: BenchContext, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Nothing of the bench's own environment leaks in (a DATABASE_URL set in the shell, say).
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    API_TOKENS: context.token,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** What a load sends: `POST /plants` with `nextBody()`, or `GET nextPath()`. */
type Traffic =
  | { readonly nextBody: () => string; readonly nextPath?: undefined }
  | { readonly nextPath: () => string; readonly nextBody?: undefined };

/** One segment of load against a running server, with its memory and CPU while under it. */
async function measureSegment(
  child: RunningChild,
  connections: number,
  seconds: number,
  traffic: Traffic,
  token: string,
): Promise<LevelFigures> {
  const peak = new PeakRss(child.pid);
  const serverCpuBefore = processCpuSeconds(child.pid);
  const machineBefore = machineCpuSeconds();
  const result: LoadResult = await runLoad({
    url: child.url,
    connections,
    durationSeconds: seconds,
    token,
    ...traffic,
  });
  const machineAfter = machineCpuSeconds();
  const serverCpuSeconds = processCpuSeconds(child.pid) - serverCpuBefore;
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.recentOutput()}`);
  return {
    ...result,
    peakRssBytes: peak.finish(),
    serverCpuPercent: (serverCpuSeconds / result.durationSeconds) * 100,
    ...(result.ok > 0 ? { cpuUsPerRequest: (serverCpuSeconds * 1e6) / result.ok } : {}),
    machineCpuPercent:
      ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
  };
}

/** One request before the load, so that a target that refuses it fails loudly instead of measuring its errors. */
async function checkOneCreate(child: RunningChild, nextBody: () => string, token: string): Promise<void> {
  const response = await fetch(`${child.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: nextBody(),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /plants answered ${response.status} before the load: ${text}`);
}

/** A side of a comparison once started: a segment of load at `connections` for `seconds`. */
interface StartedSide {
  readonly measure: (connections: number, seconds: number) => Promise<LevelFigures>;
  /** Unmeasured load at a level's concurrency, before its first round (see runGroup). */
  readonly warm?: (connections: number) => Promise<void>;
  readonly stop: () => Promise<void>;
}

/** How long each server is loaded, unmeasured, at a level's concurrency before its first round. */
function levelWarmupSeconds(options: BenchOptions): number {
  return Math.max(0.5, options.warmupSeconds / 2);
}

/** A side of a group: a server the bench starts (or pgbench), up beside the others of its group. */
interface SideSpec {
  readonly key: TargetKey;
  /** The levels it takes part in; every level when absent. */
  readonly connections?: readonly number[];
  readonly start: (run: TargetRun) => Promise<StartedSide>;
}

/**
 * A server side: started, one create checked, warmed up at c16, then measured segment by segment
 * (`beforeSegment`, a CHECKPOINT on PostgreSQL, before each).
 */
function serverSide(
  context: BenchContext,
  key: TargetKey,
  spec: ServerSpec | { readonly launch: (run: TargetRun) => Promise<RunningChild> },
  more: {
    readonly nextBody?: () => string;
    readonly token?: string;
    readonly connections?: readonly number[];
    readonly beforeSegment?: () => Promise<void>;
    /** After the server is up and before its warm-up: the growth target's seed. */
    readonly afterStart?: (run: TargetRun) => Promise<void>;
    /** When its group is over, before it is stopped: the image's memory at the end. */
    readonly beforeStop?: (run: TargetRun) => Promise<void>;
  } = {},
): SideSpec {
  const nextBody = more.nextBody ?? nextInt64Body;
  const token = more.token ?? context.token;
  return {
    key,
    ...(more.connections ? { connections: more.connections } : {}),
    start: async (run) => {
      const child = 'launch' in spec ? await spec.launch(run) : await startServer(spec);
      try {
        context.log(`  ${TARGET_LABELS[key]}: up at ${child.url} (pid ${child.pid})`);
        await more.afterStart?.(run);
        await checkOneCreate(child, nextBody, token);
        await runLoad({
          url: child.url,
          connections: 16,
          durationSeconds: context.options.warmupSeconds,
          token,
          nextBody,
        });
      } catch (error) {
        await child.stop();
        throw error;
      }
      return {
        measure: async (connections, seconds) => {
          await more.beforeSegment?.();
          return measureSegment(child, connections, seconds, { nextBody }, token);
        },
        warm: async (connections) => {
          await runLoad({
            url: child.url,
            connections,
            durationSeconds: levelWarmupSeconds(context.options),
            token,
            nextBody,
          });
        },
        stop: async () => {
          await more.beforeStop?.(run);
          await child.stop();
        },
      };
    },
  };
}

/** A short name for a round's log line. */
const SHORT: Readonly<Partial<Record<TargetKey, string>>> = {
  'postgres-single': 'single',
  'json-server': 'json',
  'growth-get-10k': 'get 10k',
  'growth-get-1m': 'get 1M',
  'growth-get-10m': 'get 10M',
  'growth-list-10k': 'list 10k',
  'growth-list-1m': 'list 1M',
  'growth-list-10m': 'list 10M',
};

/**
 * A group of sides, all up at once, each level measured in interleaved rounds (interleave.ts): in
 * every round each side once, in the group's order (a baseline before its subjects), then a closing
 * segment of every baseline. A side that fails to start or dies is reported failed; the others go on.
 */
async function runGroup(context: BenchContext, sides: readonly SideSpec[]): Promise<TargetRun[]> {
  const { rounds } = context.options;
  const seconds = segmentSeconds(context.options);
  const runs = new Map<TargetKey, TargetRun>(
    sides.map((side) => [
      side.key,
      { key: side.key, label: TARGET_LABELS[side.key], levels: [], segments: [], notes: [] },
    ]),
  );
  const started = new Map<TargetKey, StartedSide>();
  try {
    for (const side of sides) {
      const run = runs.get(side.key) as TargetRun;
      try {
        started.set(side.key, await side.start(run));
      } catch (error) {
        run.error = error instanceof Error ? error.message : String(error);
        context.log(`  FAILED (${run.label}): ${run.error}`);
      }
    }
    for (const connections of context.options.connections) {
      const active = sides.filter(
        (side) => started.has(side.key) && (side.connections ?? [connections]).includes(connections),
      );
      if (active.length === 0) continue;
      context.log(`  c${connections}: ${rounds} rounds of ${format.seconds(seconds)} s segments`);
      // Every server first gets unmeasured load at this level's concurrency: one that sat idle through
      // the level before (the JWT servers are loaded at c16 only) ran its first segment up to a fifth
      // slower than it runs once busy, which made the first round's ratio a measure of that instead.
      for (const side of active) {
        try {
          await started.get(side.key)?.warm?.(connections);
        } catch (error) {
          context.log(`    warm-up of ${side.key} failed: ${error instanceof Error ? error.message : error}`);
        }
      }
      const { segments, errors } = await interleave<LevelFigures>({
        sides: active.map((side) => ({
          key: side.key,
          measure: (time) => (started.get(side.key) as StartedSide).measure(connections, time),
        })),
        pairs: COMPARISONS,
        rounds,
        seconds,
        onRound: (round, these) =>
          these.length > 0 &&
          context.log(
            `    ${round > rounds ? 'closing' : `round ${round}`}: ` +
              these
                .map(
                  ({ side, figures }) =>
                    `${SHORT[side as TargetKey] ?? side} ${format.rps(figures.requestsPerSecond)}/s` +
                    (figures.cpuUsPerRequest === undefined
                      ? ''
                      : ` ${format.micros(figures.cpuUsPerRequest)}us`) +
                    (connections === 1 ? ` p50 ${format.ms(figures.p50Ms)}` : '') +
                    // The RSS targets are at c64: each round's peak, as they are judged.
                    (connections === 64 && figures.peakRssBytes !== undefined
                      ? ` ${format.mb(figures.peakRssBytes)}`
                      : ''),
                )
                .join(', '),
          ),
      });
      for (const segment of segments) {
        runs.get(segment.side as TargetKey)?.segments?.push({
          ...segment.figures,
          round: segment.round,
          ...(segment.closing ? { closing: true } : {}),
        });
      }
      for (const [key, message] of errors) {
        const run = runs.get(key as TargetKey) as TargetRun;
        run.error = message;
        context.log(`  FAILED (${run.label}): ${message}`);
        await started.get(key as TargetKey)?.stop();
        started.delete(key as TargetKey);
      }
      for (const side of active) {
        const run = runs.get(side.key) as TargetRun;
        const mine = (run.segments ?? []).filter((figures) => figures.connections === connections);
        if (mine.length === 0) continue;
        const summary = summarizeSegments(mine);
        run.levels.push(summary);
        context.log(describeLevel(SHORT[side.key] ?? side.key, summary));
      }
    }
  } finally {
    for (const side of [...sides].reverse()) await started.get(side.key)?.stop();
  }
  return [...runs.values()];
}

function describeLevel(name: string, figures: LevelFigures): string {
  const errors = figures.non2xx + figures.socketErrors;
  return (
    `    ${name} c${figures.connections} median: ${format.rps(figures.requestsPerSecond)} req/s, ` +
    `p50 ${format.ms(figures.p50Ms)} ms, p99 ${format.ms(figures.p99Ms)} ms, errors ${errors}` +
    (figures.peakRssBytes === undefined ? '' : `, peak RSS ${format.mb(figures.peakRssBytes)}`) +
    (figures.cpuUsPerRequest === undefined ? '' : `, ${format.micros(figures.cpuUsPerRequest)} us/req`) +
    (figures.serverCpuPercent === undefined
      ? ''
      : `, server CPU ${format.percent(figures.serverCpuPercent)}`) +
    `, machine ${format.percent(figures.machineCpuPercent)}`
  );
}

/** Seconds of each segment of the main comparisons: the level's duration shared by the rounds, at least 1 s. */
export function segmentSeconds(options: BenchOptions): number {
  return Math.max(1, options.durationSeconds / options.rounds);
}

function nodeServer(
  context: BenchContext,
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
) {
  return {
    name,
    args: () => args,
    env: serverEnv(context, env),
    cwd: cwd ?? context.root,
    readyPath: '/healthz',
  } satisfies ServerSpec;
}

function requirePostgres(context: BenchContext): string {
  if (context.postgresUrl === undefined)
    throw new Error(`PostgreSQL unavailable: ${context.postgresProblem}`);
  return context.postgresUrl;
}

const baselinePath = (context: BenchContext, file: string) =>
  join(context.root, 'bench', 'src', 'baselines', file);
/** How the service is started: `node` with these arguments, and these variables in its environment. */
interface ServiceCommand {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The service's command line as `pnpm start` runs it: the root package.json's start script,
 * `[NAME=value ...] node <flags> apps/api/dist/main.js`, so that the bench measures what users run,
 * flags and environment (MALLOC_ARENA_MAX) included.
 */
function apiCommand(context: BenchContext): ServiceCommand {
  const manifest = JSON.parse(readFileSync(join(context.root, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = (manifest.scripts?.start ?? '').split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = (words.shift() as string).split('=');
    env[name as string] = value.join('=');
  }
  const [command, ...args] = words;
  const main = args.at(-1);
  if (command !== 'node' || main === undefined || !/main\.[jt]s$/.test(main))
    throw new Error(
      `the root start script is not "[NAME=value ...] node [flags] <main.js>": ${manifest.scripts?.start}`,
    );
  const path = join(context.root, main);
  // `pnpm bench` builds it first, as `pnpm start` does (the root package.json's prestart).
  if (!existsSync(path)) throw new Error(`the service is not built: ${path} is missing (run pnpm build)`);
  return { args: [...args.slice(0, -1), path], env };
}

/** The service as a server of the bench, started as `pnpm start` starts it, with `env` added to its environment. */
function serviceServer(context: BenchContext, name: string, env: NodeJS.ProcessEnv = {}, cwd?: string) {
  const command = apiCommand(context);
  return nodeServer(context, name, command.args, { ...command.env, ...env }, cwd);
}

/**
 * The service on memory: storage, sent bodies shaped to cost, each against a plain body of the same
 * size (see hostile-bodies.ts). Its segments last an eighth of a load level, at least half a second.
 */
async function runHostileBodies(context: BenchContext): Promise<TargetRun> {
  const run: TargetRun = { key: 'hostile', label: TARGET_LABELS.hostile, levels: [], notes: [] };
  const child = await startServer(serviceServer(context, 'service (memory:)', { DATABASE_URL: 'memory:' }));
  context.log(`  up at ${child.url} (pid ${child.pid})`);
  try {
    run.hostile = await measureHostileBodies({
      child,
      token: context.token,
      segmentSeconds: Math.max(0.5, context.options.durationSeconds / 8),
      warmupSeconds: context.options.warmupSeconds / 2,
      // Ids of their own, far from the load's (which start at 2^53 and count up).
      firstId: -(2n ** 62n) - BigInt(Math.floor(Math.random() * 1e9)) * 16n,
      log: context.log,
    });
    run.notes.push(
      'each body is sent again and again with the same id: the first request creates the plant, the rest are retries (200, nothing stored), so memory stays flat',
    );
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  } finally {
    await child.stop();
  }
  return run;
}

/** The plants stored before the reads are timed. */
const READ_SEED_PLANTS = 10_000;
/** The page the list reads: `GET /plants?limit=100&after=<a stored id>`, always a full page with a next one. */
const READ_PAGE_LIMIT = 100;

/**
 * A read on PostgreSQL (see reads.ts): the service started on an empty bench database, which it
 * migrates; READ_SEED_PLANTS plants stored in its table; the bare node:http + pg server started on
 * the same table; then both loaded in turn with reads of stored plants only, at random.
 */
async function runReads(context: BenchContext, key: 'pg-get' | 'pg-list'): Promise<TargetRun> {
  const run: TargetRun = { key, label: TARGET_LABELS[key], levels: [], notes: [] };
  let service: RunningChild | undefined;
  let bare: RunningChild | undefined;
  try {
    const url = requirePostgres(context);
    await resetBenchDatabase(url);
    service = await startServer(serviceServer(context, 'service (PostgreSQL)', { DATABASE_URL: url }));
    const started = performance.now();
    const ids = await seedReadPlants(url, READ_SEED_PLANTS);
    context.log(
      `  service up at ${service.url} (pid ${service.pid}); ${ids.length.toLocaleString('en-US')} plants stored in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    bare = await startServer(
      nodeServer(context, 'node:http + pg (reads)', [baselinePath(context, 'bare-pg-reads.ts'), '--pg', url]),
    );
    context.log(`  node:http + pg up at ${bare.url} (pid ${bare.pid})`);
    const random = (count: number) => ids[Math.floor(Math.random() * count)] as string;
    // A list starts after a stored id with more than a page of ids after it: a full page, and a next one.
    const lastStart = ids.length - READ_PAGE_LIMIT - 1;
    if (lastStart < 1) throw new Error(`only ${ids.length} plants were stored`);
    run.reads = await measureReads({
      service,
      bare,
      token: context.token,
      request: key === 'pg-get' ? 'GET /plants/{id}' : `GET /plants?limit=${READ_PAGE_LIMIT}&after={id}`,
      seeded: ids.length,
      nextPath:
        key === 'pg-get'
          ? () => `/plants/${random(ids.length)}`
          : () => `/plants?limit=${READ_PAGE_LIMIT}&after=${random(lastStart)}`,
      expectLink: key === 'pg-list',
      segmentSeconds: Math.max(1, context.options.durationSeconds / 4),
      warmupSeconds: context.options.warmupSeconds,
      log: context.log,
    });
    run.notes.push(
      `${ids.length.toLocaleString('en-US')} plants stored before the timed part, random positive int64 ids; ` +
        (key === 'pg-get'
          ? 'each request reads a stored plant picked at random'
          : `each request reads a full page of ${READ_PAGE_LIMIT} after a stored id picked at random (both servers read ${READ_PAGE_LIMIT + 1} rows: the one more says a next page follows)`),
    );
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  } finally {
    await bare?.stop();
    await service?.stop();
  }
  return run;
}

/**
 * The webhook on creation (see webhook.ts): on an empty bench database, the service with the
 * webhook off, then a bare node:http receiver, then the service with WEBHOOK_URLS set to it and a
 * fresh secret (WEBHOOK_TIMEOUT_MS and the retry schedule their defaults), all three up at once;
 * the two services loaded in turn with creates of fresh ids at c64.
 */
async function runWebhook(context: BenchContext): Promise<TargetRun> {
  const run: TargetRun = { key: 'webhook', label: TARGET_LABELS.webhook, levels: [], notes: [] };
  let off: RunningChild | undefined;
  let on: RunningChild | undefined;
  let receiver: RunningChild | undefined;
  try {
    const url = requirePostgres(context);
    // Also drops the job queue a previous run left: its undelivered jobs would be delivered here.
    await resetBenchDatabase(url);
    off = await startServer(
      serviceServer(context, 'service (PostgreSQL, webhook off)', { DATABASE_URL: url }),
    );
    context.log(`  webhook off: up at ${off.url} (pid ${off.pid})`);
    receiver = await startServer(
      nodeServer(context, 'webhook receiver', [baselinePath(context, 'webhook-receiver.ts')]),
    );
    context.log(`  receiver: up at ${receiver.url} (pid ${receiver.pid})`);
    on = await startServer(
      serviceServer(context, 'service (PostgreSQL, webhook on)', {
        DATABASE_URL: url,
        WEBHOOK_URLS: `${receiver.url}/plant-created`,
        WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      }),
    );
    context.log(`  webhook on: up at ${on.url} (pid ${on.pid})`);
    await checkpoint(url);
    const figures = await measureWebhook({
      off,
      on,
      receiver,
      token: context.token,
      nextBody: nextInt64Body,
      segmentSeconds: Math.max(1, context.options.durationSeconds / 4),
      warmupSeconds: context.options.warmupSeconds,
      log: context.log,
    });
    run.webhook = figures;
    run.notes.push(
      'each request creates a plant of a fresh id; both services are up at once on the same database, and the "on" one delivers each plant to a node:http receiver that answers 204',
    );
    if (figures.shortfall > 0) {
      run.error =
        `${figures.shortfall} of ${figures.expectedDeliveries} webhook deliveries had not arrived ` +
        `${figures.drainLimitSeconds} s after their segment`;
    }
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  } finally {
    await on?.stop();
    await receiver?.stop();
    await off?.stop();
  }
  return run;
}

/** The levels of the JWT targets: c16 (the target's), or every level when c16 is not run. */
const JWT_CONNECTIONS = 16;

/**
 * bare node:http, koa minimal, the service on memory and the service with JWT on, all up at once:
 * the comparisons of the service's own cost per request.
 */
async function runMemoryGroup(context: BenchContext): Promise<TargetRun[]> {
  const want = (key: TargetKey) => context.selected.has(key);
  const jwtKeys = (['jwt-es256', 'jwt-rs256'] as const).filter(want);
  // The service with JWT on gets one access token of the bench's provider for the whole run (the
  // verified-token cache then answers after the first request, as for a client reusing its token).
  const provider = jwtKeys.length > 0 ? await startBenchProvider() : undefined;
  try {
    const sides: SideSpec[] = [];
    if (want('bare'))
      sides.push(
        serverSide(
          context,
          'bare',
          nodeServer(context, 'bare node:http', [baselinePath(context, 'bare-http.ts')]),
        ),
      );
    if (want('koa'))
      sides.push(
        serverSide(
          context,
          'koa',
          nodeServer(context, 'koa minimal', [baselinePath(context, 'koa-minimal.ts')]),
        ),
      );
    if (want('memory'))
      sides.push(
        serverSide(
          context,
          'memory',
          serviceServer(context, 'service (memory:)', { DATABASE_URL: 'memory:' }),
        ),
      );
    for (const key of jwtKeys) {
      if (provider === undefined) break;
      sides.push(
        serverSide(
          context,
          key,
          {
            ...serviceServer(context, `service (memory:, ${key})`, {
              DATABASE_URL: 'memory:',
              JWT_ISSUER: provider.issuer,
              JWT_JWKS_URL: provider.jwksUrl,
              JWT_AUDIENCE: BENCH_AUDIENCE,
            }),
            readyPath: '/readyz',
          },
          {
            token: await provider.token(key === 'jwt-es256' ? 'ES256' : 'RS256'),
            ...(context.options.connections.includes(JWT_CONNECTIONS)
              ? { connections: [JWT_CONNECTIONS] }
              : {}),
          },
        ),
      );
    }
    const runs = await runGroup(context, sides);
    for (const run of runs) {
      if (run.key === 'jwt-es256' || run.key === 'jwt-rs256')
        run.notes.push('one access token for the whole run, as a client reuses its token until it expires');
    }
    return runs;
  } finally {
    await provider?.close();
  }
}

/** json-server and the service on embedded PGlite (the default), both up at once. */
async function runEmbeddedGroup(context: BenchContext): Promise<TargetRun[]> {
  const sides: SideSpec[] = [];
  if (context.selected.has('json-server')) {
    const dir = makeTempDir('json-server');
    const db = join(dir, 'db.json');
    writeFileSync(db, '{ "plants": [] }\n');
    const bin = join(context.root, 'bench', 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');
    sides.push(
      serverSide(
        context,
        'json-server',
        {
          name: 'json-server',
          args: (port) => [bin, '--quiet', '--host', '127.0.0.1', '--port', String(port), db],
          env: serverEnv(context),
          cwd: dir,
          readyPath: '/plants',
        },
        { nextBody: nextSafeIntegerBody },
      ),
    );
  }
  if (context.selected.has('embedded')) {
    // As a user starts it: DATABASE_URL unset, so PGlite keeps its data in ./data of the working directory.
    const cwd = makeTempDir('embedded');
    sides.push(
      serverSide(context, 'embedded', {
        ...serviceServer(context, 'service (embedded)', {}, cwd),
        startTimeoutMs: 120_000,
      }),
    );
  }
  const runs = await runGroup(context, sides);
  runs
    .find((run) => run.key === 'json-server')
    ?.notes.push(
      'json-server 0.17 keeps every plant in one JSON file that it rewrites on each create, so its rate falls as the file grows; it has no auth and reads ids as doubles, so it gets small ids',
    );
  return runs;
}

/** The level of every growth comparison, writes and reads: the issue's growth target is at c64. */
const GROWTH_CONNECTIONS = 64;

/** A table of the growth targets: its plants, seeded in a schema of its own and kept between runs. */
interface GrowthTable {
  readonly schema: string;
  readonly rows: number;
  /** `1M`, for labels. */
  readonly size: string;
}

function growthTables(context: BenchContext): Record<'small' | 'oneMillion' | 'tenMillion', GrowthTable> {
  return {
    small: { schema: GROWTH_SMALL_SCHEMA, rows: READ_SEED_PLANTS, size: '10k' },
    oneMillion: { schema: GROWTH_SCHEMA, rows: context.options.seedRows, size: '1M' },
    tenMillion: { schema: GROWTH_10M_SCHEMA, rows: context.options.largeSeedRows, size: '10M' },
  };
}

/**
 * A growth table as seeded, with a service already up on it (which migrated it): seeded anew, or
 * kept from an earlier run with that run's load taken out (prepareGrowthTable); then counted.
 * Answers the note for its run.
 */
async function prepareGrowth(context: BenchContext, tableUrl: string, table: GrowthTable): Promise<string> {
  const rows = table.rows.toLocaleString('en-US');
  const started = performance.now();
  context.log(`  ${table.schema}: preparing ${rows} plants (seeding them anew: about 6 s a million)`);
  const prepared = await prepareGrowthTable(tableUrl, table.rows);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const count = await countRows(tableUrl, 'plants');
  if (count !== table.rows)
    throw new Error(
      `${table.schema}.plants holds ${count.toLocaleString('en-US')} rows after seeding, not ${rows}`,
    );
  context.log(
    prepared.reused
      ? `  ${table.schema}: ${rows} plants kept from an earlier run, ${prepared.removed.toLocaleString('en-US')} rows of its load deleted, vacuumed in ${seconds} s`
      : `  ${table.schema}: ${rows} plants seeded, vacuumed and analysed in ${seconds} s (kept for the next runs)`,
  );
  return (
    `${rows} plants in a schema of its own (${table.schema}) before any load, random negative ids; ` +
    (prepared.reused
      ? `kept from an earlier run, whose ${prepared.removed.toLocaleString('en-US')} created rows were deleted and the table vacuumed`
      : 'seeded in this run and kept for the next')
  );
}

/** Ids the growth reads pick from in a large table: about this many, drawn at random over all of it. */
const GROWTH_READ_SAMPLE = 100_000;
/** How many answers of each growth read server are checked before the load. */
const GROWTH_READ_CHECKS = 20;

/** A service up on a growth table, with the ids its reads pick from, or why it is not. */
type GrowthServer =
  | {
      readonly child: RunningChild;
      readonly table: GrowthTable;
      readonly sample: GrowthSample;
      readonly note: string;
    }
  | { readonly error: string };

/** Before any load: the reads answer 200, GET a seeded plant, a list a full page with a `Link` to the next. */
async function checkGrowthReads(
  child: RunningChild,
  token: string,
  kind: 'get' | 'list',
  nextId: () => string,
): Promise<void> {
  for (let index = 0; index < GROWTH_READ_CHECKS; index += 1) {
    const id = nextId();
    const path = kind === 'get' ? `/plants/${id}` : `/plants?limit=${READ_PAGE_LIMIT}&after=${id}`;
    const response = await fetch(`${child.url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.text();
    const wrong =
      response.status !== 200
        ? `answered ${response.status}`
        : kind === 'get'
          ? /^\{"name":"Monstera deliciosa \d{8}"(?:,"tag":"aroid")?\}$/.test(body)
            ? undefined
            : 'answered no seeded plant'
          : response.headers.get('link') === null
            ? 'answered no Link header, though more plants remain'
            : (JSON.parse(body) as unknown[]).length !== READ_PAGE_LIMIT
              ? `answered a page of ${(JSON.parse(body) as unknown[]).length}, not ${READ_PAGE_LIMIT}`
              : undefined;
    if (wrong !== undefined) throw new Error(`${child.name}: GET ${path} ${wrong}: ${body.slice(0, 300)}`);
  }
}

/**
 * A read of a growth table as a side of a group (runGroup): on a service already up (the part starts
 * and stops it), checked, warmed up at c16, then measured; any answer but a 2xx fails it, so that no
 * error is measured as a read.
 */
function growthReadSide(
  context: BenchContext,
  key: TargetKey,
  server: GrowthServer,
  kind: 'get' | 'list',
): SideSpec {
  return {
    key,
    connections: [GROWTH_CONNECTIONS],
    start: async (run) => {
      if ('error' in server) throw new Error(server.error);
      const { child, sample } = server;
      const from = kind === 'get' ? sample.ids : sample.pageStarts;
      const nextId = () => from[Math.floor(Math.random() * from.length)] as string;
      const nextPath =
        kind === 'get'
          ? () => `/plants/${nextId()}`
          : () => `/plants?limit=${READ_PAGE_LIMIT}&after=${nextId()}`;
      const token = context.token;
      const refuseErrors = (figures: LoadResult): void => {
        if (figures.non2xx > 0 || figures.socketErrors > 0)
          throw new Error(
            `${child.name} answered ${figures.ok} reads with a 2xx, ${figures.non2xx} with another status and ` +
              `${figures.socketErrors} with a socket error or timeout`,
          );
      };
      await checkGrowthReads(child, token, kind, nextId);
      refuseErrors(
        await runLoad({
          url: child.url,
          connections: 16,
          durationSeconds: context.options.warmupSeconds,
          token,
          nextPath,
        }),
      );
      const picked =
        sample.ids.length === server.table.rows
          ? `all ${sample.ids.length.toLocaleString('en-US')} stored ids`
          : `${sample.ids.length.toLocaleString('en-US')} ids read back at random over the whole table (TABLESAMPLE BERNOULLI)`;
      run.notes.push(
        `${server.note}; ` +
          (kind === 'get'
            ? `each request reads a plant picked at random among ${picked}`
            : `each request reads a full page of ${READ_PAGE_LIMIT} after an id picked at random among ${picked} that have a full page and a next one after them (${from.length.toLocaleString('en-US')})`),
      );
      return {
        measure: async (connections, seconds) => {
          const figures = await measureSegment(child, connections, seconds, { nextPath }, token);
          refuseErrors(figures);
          return figures;
        },
        warm: async (connections) => {
          refuseErrors(
            await runLoad({
              url: child.url,
              connections,
              durationSeconds: levelWarmupSeconds(context.options),
              token,
              nextPath,
            }),
          );
        },
        stop: async () => {},
      };
    },
  };
}

/**
 * The growth of the reads: a service on each of a 10,000-, a 1,000,000- and a 10,000,000-plant table
 * (each seeded alike in a schema of its own, kept between runs), all up at once; then GET by id on
 * each, loaded in turn, 10k, 1M, 10M, 10k, ..., 10k, at c64, then a list page the same way. Each
 * request reads a stored plant picked at random over its table (or a full page after one).
 */
async function runGrowthReads(context: BenchContext): Promise<TargetRun[]> {
  const want = (key: TargetKey) => context.selected.has(key);
  const url = requirePostgres(context);
  const { small, oneMillion, tenMillion } = growthTables(context);
  const sizes = [
    { table: small, get: 'growth-get-10k', list: 'growth-list-10k' },
    { table: oneMillion, get: 'growth-get-1m', list: 'growth-list-1m' },
    { table: tenMillion, get: 'growth-get-10m', list: 'growth-list-10m' },
  ] as const;
  // A large table's read brings the small table's, its baseline, with it.
  const keysOf = (kind: 'get' | 'list'): TargetKey[] => {
    const subjects = sizes.slice(1).filter((size) => want(size[kind]));
    return sizes
      .filter((size, index) => want(size[kind]) || (index === 0 && subjects.length > 0))
      .map((size) => size[kind]);
  };
  const keys = { get: keysOf('get'), list: keysOf('list') };
  const needed = sizes.filter((size) => keys.get.includes(size.get) || keys.list.includes(size.list));
  await resetBenchDatabase(url);
  const servers = new Map<string, GrowthServer>();
  const children: RunningChild[] = [];
  try {
    for (const { table } of needed) {
      try {
        await createSchema(url, table.schema);
        const tableUrl = withSearchPath(url, table.schema);
        const child = await startServer(
          serviceServer(context, `service (PostgreSQL, ${table.size} rows)`, {
            DATABASE_URL: tableUrl,
          }),
        );
        children.push(child);
        context.log(`  ${table.size} rows: up at ${child.url} (pid ${child.pid})`);
        const note = await prepareGrowth(context, tableUrl, table);
        const started = performance.now();
        const sample = await sampleGrowthIds(tableUrl, table.rows, GROWTH_READ_SAMPLE, READ_PAGE_LIMIT);
        context.log(
          `  ${table.schema}: ${sample.ids.length.toLocaleString('en-US')} ids read back in ` +
            `${((performance.now() - started) / 1000).toFixed(1)} s, ${sample.pageStarts.length.toLocaleString('en-US')} with a full page after them`,
        );
        if (sample.ids.length === 0 || sample.pageStarts.length === 0)
          throw new Error(`${table.schema}: no ids to read (${sample.ids.length} read back)`);
        servers.set(table.schema, { child, table, sample, note });
      } catch (error) {
        servers.set(table.schema, { error: error instanceof Error ? error.message : String(error) });
      }
    }
    const runs: TargetRun[] = [];
    for (const kind of ['get', 'list'] as const) {
      const sides = sizes
        .filter((size) => keys[kind].includes(size[kind]))
        .map((size) =>
          growthReadSide(
            context,
            size[kind],
            servers.get(size.table.schema) ?? { error: 'not started' },
            kind,
          ),
        );
      if (sides.length > 0) runs.push(...(await runGroup(context, sides)));
    }
    return runs;
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

/** The level the image is measured at: the issue's RSS target is at c64. */
const IMAGE_CONNECTIONS = 64;

/**
 * The api's Docker image (docker.ts) as a side of the PostgreSQL group, c64 only: built as the
 * container drills build it (BuildKit's cache: quick when nothing changed), run on the bench database
 * with the settings every server of the bench gets (serverEnv, without the bench's PATH and HOME),
 * then checked, warmed up and measured as the host's service is, through the container's main
 * process as the host sees it (its peak RSS, VmHWM reset before each segment, and its CPU time).
 * Before it is stopped, its VmRSS and its cgroup's peak are kept. NOT MEASURED, with the reason, when
 * no Docker engine answers or the image cannot be built; the rest of the group goes on.
 */
function imageSide(context: BenchContext, url: string, beforeSegment: () => Promise<void>): SideSpec {
  let container: RunningContainer | undefined;
  return serverSide(
    context,
    'image',
    {
      launch: async (run) => {
        if (!context.options.connections.includes(IMAGE_CONNECTIONS))
          throw new Error(`measured at c${IMAGE_CONNECTIONS} only, which --connections leaves out`);
        const problem = await engineProblem();
        if (problem !== undefined) throw new Error(problem);
        const orphans = await removeOrphanContainers();
        if (orphans.length > 0)
          context.log(
            `  image: removed ${orphans.length} container(s) a killed bench left: ${orphans.join(', ')}`,
          );
        context.log(
          `  image: building ${API_IMAGE} from docker/Dockerfile (about 2 minutes from scratch, ` +
            'about 80 s after a change to the sources, under a second when nothing changed)',
        );
        const built = await buildApiImage();
        context.log(
          `  image: ${built.unchanged ? 'unchanged' : 'built'} in ${built.seconds.toFixed(1)} s, ` +
            `${built.id.slice(0, 19)} on ${built.base}`,
        );
        run.container = {
          image: built.image,
          imageId: built.id,
          baseImage: built.base,
          buildSeconds: built.seconds,
          buildUnchanged: built.unchanged,
        };
        // The bench's PATH and HOME are the host's, not the image's: everything else of serverEnv.
        const env = Object.entries(serverEnv(context, { DATABASE_URL: url })).flatMap(([name, value]) =>
          value === undefined || name === 'PATH' || name === 'HOME' ? [] : [[name, value] as const],
        );
        container = await startContainer({
          name: 'api image (PostgreSQL)',
          image: built.id,
          env: Object.fromEntries(env),
        });
        run.notes.push(
          `${built.image} (${built.id.slice(0, 19)}, on ${built.base}; ${built.unchanged ? 'the build changed nothing' : 'built in this run'}, ` +
            `${built.seconds.toFixed(1)} s), run as a container with --network host on the bench database, ` +
            'its HEALTHCHECK off; measured through its main process (node) as the host sees it; ' +
            "up beside the host's service started like pnpm start and loaded in turn with it at c64",
        );
        return container;
      },
    },
    {
      connections: [IMAGE_CONNECTIONS],
      beforeSegment,
      beforeStop: async (run) => {
        if (container === undefined || run.container === undefined || container.exited()) return;
        const memory = container.memory();
        if (memory.rssBytes !== undefined) run.container.rssAtEndBytes = memory.rssBytes;
        if (memory.cgroupPeakBytes !== undefined) {
          run.container.cgroupPeakBytes = memory.cgroupPeakBytes;
          if (memory.cgroupPeakSource !== undefined) run.container.cgroupPeakSource = memory.cgroupPeakSource;
        }
      },
    },
  );
}

/**
 * pgbench, the bare node:http + pg server, the service with GROUP_COMMIT=off, the service, the api's
 * image, and the service on a table of 1,000,000 and of 10,000,000 plants (each in its own schema;
 * these three c64 only), all on the bench database at once; a CHECKPOINT before every segment.
 */
async function runPostgresGroup(context: BenchContext): Promise<TargetRun[]> {
  const want = (key: TargetKey) => context.selected.has(key);
  const url = requirePostgres(context);
  await resetBenchDatabase(url);
  const beforeSegment = () => checkpoint(url);
  const sides: SideSpec[] = [];
  if (want('pgbench')) {
    sides.push({
      key: 'pgbench',
      start: async (run) => {
        await createPgbenchTable(url);
        run.notes.push(
          'pgbench -M prepared, -j 2 (or 1 at c1), one INSERT ... ON CONFLICT DO NOTHING a transaction, random ids, each segment rounded to whole seconds; p50/p99 from its per-transaction log',
        );
        return {
          measure: async (connections, seconds) => {
            await checkpoint(url);
            return runPgbench(url, connections, Math.max(1, Math.round(seconds)));
          },
          stop: async () => {},
        };
      },
    });
  }
  if (want('bare-pg'))
    sides.push(
      serverSide(
        context,
        'bare-pg',
        nodeServer(context, 'node:http + pg', [baselinePath(context, 'bare-http.ts'), '--pg', url]),
        { beforeSegment },
      ),
    );
  if (want('postgres-single'))
    sides.push(
      serverSide(
        context,
        'postgres-single',
        serviceServer(context, 'service (PostgreSQL, GROUP_COMMIT=off)', {
          DATABASE_URL: url,
          GROUP_COMMIT: 'off',
        }),
        { beforeSegment },
      ),
    );
  // Asked for a growth or image run alone, the host's service it compares to is c64 only.
  const growthKeys = (['growth', 'growth-10m'] as const).filter(want);
  if (want('postgres') || growthKeys.length > 0 || want('image'))
    sides.push(
      serverSide(context, 'postgres', serviceServer(context, 'service (PostgreSQL)', { DATABASE_URL: url }), {
        beforeSegment,
        ...(want('postgres') ? {} : { connections: [GROWTH_CONNECTIONS] }),
      }),
    );
  if (want('image')) sides.push(imageSide(context, url, beforeSegment));
  const tables = growthTables(context);
  for (const key of growthKeys) {
    const table = key === 'growth' ? tables.oneMillion : tables.tenMillion;
    const tableUrl = withSearchPath(url, table.schema);
    await createSchema(url, table.schema);
    sides.push(
      serverSide(
        context,
        key,
        serviceServer(context, `service (PostgreSQL, ${table.size} rows)`, {
          DATABASE_URL: tableUrl,
        }),
        {
          connections: [GROWTH_CONNECTIONS],
          beforeSegment,
          afterStart: async (run) => {
            run.notes.push(
              `${await prepareGrowth(context, tableUrl, table)}; up beside the empty-table service and loaded in turn with it`,
            );
          },
        },
      ),
    );
  }
  return runGroup(context, sides);
}

/** A part of a run: a group of targets up at once, or a target that measures itself. */
export interface BenchPart {
  readonly title: string;
  readonly keys: readonly TargetKey[];
  readonly run: () => Promise<TargetRun[]>;
}

const MEMORY_GROUP: readonly TargetKey[] = ['bare', 'koa', 'memory', 'jwt-es256', 'jwt-rs256'];
const EMBEDDED_GROUP: readonly TargetKey[] = ['json-server', 'embedded'];
const POSTGRES_GROUP: readonly TargetKey[] = [
  'pgbench',
  'bare-pg',
  'postgres-single',
  'postgres',
  'image',
  'growth',
  'growth-10m',
];
const GROWTH_READS: readonly TargetKey[] = [
  'growth-get-10k',
  'growth-get-1m',
  'growth-get-10m',
  'growth-list-10k',
  'growth-list-1m',
  'growth-list-10m',
];

/** The run's parts, in the order they run, with only the selected targets. */
export function planParts(context: BenchContext): BenchPart[] {
  const parts: BenchPart[] = [];
  const group = (keys: readonly TargetKey[], run: (context: BenchContext) => Promise<TargetRun[]>) => {
    const chosen = keys.filter((key) => context.selected.has(key));
    if (chosen.length > 0)
      parts.push({
        title: chosen.map((key) => TARGET_LABELS[key]).join(' | '),
        keys: chosen,
        run: () => run(context),
      });
  };
  group(MEMORY_GROUP, runMemoryGroup);
  group(EMBEDDED_GROUP, runEmbeddedGroup);
  group(POSTGRES_GROUP, runPostgresGroup);
  for (const key of ['pg-get', 'pg-list'] as const) group([key], async () => [await runReads(context, key)]);
  group(GROWTH_READS, runGrowthReads);
  group(['webhook'], async () => [await runWebhook(context)]);
  group(['hostile'], async () => [await runHostileBodies(context)]);
  return parts;
}
