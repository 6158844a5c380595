// How each target is started and measured. Every server runs as a child process on an ephemeral
// loopback port with the same keep-alive load, the same payloads and the same token.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureHostileBodies } from './hostile-bodies.ts';
import { BENCH_AUDIENCE, startBenchProvider } from './jwt-provider.ts';
import { type LoadResult, nextInt64Body, nextSafeIntegerBody, runLoad } from './load.ts';
import type { BenchOptions } from './options.ts';
import { runPgbench } from './pgbench.ts';
import {
  checkpoint,
  countRows,
  createPgbenchTable,
  resetBenchDatabase,
  seedPlants,
  seedReadPlants,
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
import { format } from './report.ts';
import { type LevelFigures, TARGET_LABELS, type TargetKey, type TargetRun } from './results.ts';
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

function describeLevel(figures: LevelFigures): string {
  const errors = figures.non2xx + figures.socketErrors;
  return (
    `  c${figures.connections}: ${format.rps(figures.requestsPerSecond)} req/s, ` +
    `p50 ${format.ms(figures.p50Ms)} ms, p99 ${format.ms(figures.p99Ms)} ms, errors ${errors}` +
    (figures.peakRssBytes === undefined ? '' : `, peak RSS ${format.mb(figures.peakRssBytes)}`) +
    (figures.serverCpuPercent === undefined
      ? ''
      : `, server CPU ${format.percent(figures.serverCpuPercent)}`) +
    `, load gen CPU ${format.percent(figures.loadGeneratorCpuPercent)}, machine ${format.percent(figures.machineCpuPercent)}`
  );
}

/** One level of load against a running server, with its memory and CPU while under it. */
async function measureLevel(
  context: BenchContext,
  child: RunningChild,
  connections: number,
  nextBody: () => string,
  token = context.token,
): Promise<LevelFigures> {
  const peak = new PeakRss(child.pid);
  const serverCpuBefore = processCpuSeconds(child.pid);
  const machineBefore = machineCpuSeconds();
  const result: LoadResult = await runLoad({
    url: child.url,
    connections,
    durationSeconds: context.options.durationSeconds,
    token,
    nextBody,
  });
  const machineAfter = machineCpuSeconds();
  const figures: LevelFigures = {
    ...result,
    peakRssBytes: peak.finish(),
    serverCpuPercent: ((processCpuSeconds(child.pid) - serverCpuBefore) / result.durationSeconds) * 100,
    machineCpuPercent:
      ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
  };
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.recentOutput()}`);
  context.log(describeLevel(figures));
  return figures;
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

async function warmUp(
  context: BenchContext,
  child: RunningChild,
  nextBody: () => string,
  token: string,
): Promise<void> {
  await runLoad({
    url: child.url,
    connections: 16,
    durationSeconds: context.options.warmupSeconds,
    token,
    nextBody,
  });
}

interface ServerTarget {
  readonly key: TargetKey;
  /** The bearer token of its requests; the run's static token when absent. */
  readonly token?: string;
  readonly spec: ServerSpec;
  readonly nextBody: () => string;
  readonly connections?: readonly number[];
  /** Before each level: a checkpoint for the targets on PostgreSQL. */
  readonly beforeLevel?: () => Promise<void>;
  /** After the levels, with the server still up: the 1M-row run. */
  readonly afterLevels?: (child: RunningChild, run: TargetRun) => Promise<TargetRun[]>;
}

async function runServerTarget(context: BenchContext, target: ServerTarget): Promise<TargetRun[]> {
  const run: TargetRun = { key: target.key, label: TARGET_LABELS[target.key], levels: [], notes: [] };
  const child = await startServer(target.spec);
  context.log(`  up at ${child.url} (pid ${child.pid})`);
  try {
    const token = target.token ?? context.token;
    await checkOneCreate(child, target.nextBody, token);
    await warmUp(context, child, target.nextBody, token);
    for (const connections of target.connections ?? context.options.connections) {
      await target.beforeLevel?.();
      run.levels.push(await measureLevel(context, child, connections, target.nextBody, token));
    }
    const more = (await target.afterLevels?.(child, run)) ?? [];
    return [run, ...more];
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    return [run];
  } finally {
    await child.stop();
  }
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
/**
 * The service's command line as `pnpm start` runs it: the root package.json's start script,
 * `node <flags> apps/api/src/main.ts`, so that the bench measures what users run, flags included.
 */
function apiArgs(context: BenchContext): string[] {
  const manifest = JSON.parse(readFileSync(join(context.root, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const [command, ...args] = (manifest.scripts?.start ?? '').split(/\s+/);
  const main = args.at(-1);
  if (command !== 'node' || main === undefined || !main.endsWith('main.ts'))
    throw new Error(`the root start script is not "node [flags] <main.ts>": ${manifest.scripts?.start}`);
  const path = join(context.root, main);
  if (!existsSync(path)) throw new Error(`the service is not there yet: ${path} is missing`);
  return [...args.slice(0, -1), path];
}

async function runGrowth(context: BenchContext, url: string, child: RunningChild): Promise<TargetRun> {
  const run: TargetRun = { key: 'growth', label: TARGET_LABELS.growth, levels: [], notes: [] };
  try {
    const started = performance.now();
    await seedPlants(url, context.options.seedRows);
    const rows = await countRows(url, 'plants');
    context.log(
      `  seeded ${context.options.seedRows.toLocaleString('en-US')} plants in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `${rows.toLocaleString('en-US')} rows now`,
    );
    run.notes.push(
      `${context.options.seedRows.toLocaleString('en-US')} plants seeded on top of those the earlier levels stored`,
    );
    await checkpoint(url);
    run.levels.push(await measureLevel(context, child, 64, nextInt64Body));
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  }
  return run;
}

/**
 * The service on memory: storage, sent bodies shaped to cost, each against a plain body of the same
 * size (see hostile-bodies.ts). Its segments last an eighth of a load level, at least half a second.
 */
async function runHostileBodies(context: BenchContext): Promise<TargetRun> {
  const run: TargetRun = { key: 'hostile', label: TARGET_LABELS.hostile, levels: [], notes: [] };
  const child = await startServer(
    nodeServer(context, 'service (memory:)', apiArgs(context), { DATABASE_URL: 'memory:' }),
  );
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
    service = await startServer(
      nodeServer(context, 'service (PostgreSQL)', apiArgs(context), { DATABASE_URL: url }),
    );
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
    const args = apiArgs(context);
    // Also drops the job queue a previous run left: its undelivered jobs would be delivered here.
    await resetBenchDatabase(url);
    off = await startServer(
      nodeServer(context, 'service (PostgreSQL, webhook off)', args, { DATABASE_URL: url }),
    );
    context.log(`  webhook off: up at ${off.url} (pid ${off.pid})`);
    receiver = await startServer(
      nodeServer(context, 'webhook receiver', [baselinePath(context, 'webhook-receiver.ts')]),
    );
    context.log(`  receiver: up at ${receiver.url} (pid ${receiver.pid})`);
    on = await startServer(
      nodeServer(context, 'service (PostgreSQL, webhook on)', args, {
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

/** Runs one target (the PostgreSQL service also runs the 1M-row growth run when it is selected). */
export async function runTarget(context: BenchContext, key: TargetKey): Promise<TargetRun[]> {
  switch (key) {
    case 'bare':
      return runServerTarget(context, {
        key,
        spec: nodeServer(context, 'bare node:http', [baselinePath(context, 'bare-http.ts')]),
        nextBody: nextInt64Body,
      });
    case 'koa':
      return runServerTarget(context, {
        key,
        spec: nodeServer(context, 'koa minimal', [baselinePath(context, 'koa-minimal.ts')]),
        nextBody: nextInt64Body,
      });
    case 'memory':
      return runServerTarget(context, {
        key,
        spec: nodeServer(context, 'service (memory:)', apiArgs(context), { DATABASE_URL: 'memory:' }),
        nextBody: nextInt64Body,
      });
    case 'embedded': {
      // As a user starts it: DATABASE_URL unset, so PGlite keeps its data in ./data of the working directory.
      const cwd = makeTempDir('embedded');
      return runServerTarget(context, {
        key,
        spec: {
          ...nodeServer(context, 'service (embedded)', apiArgs(context), {}, cwd),
          startTimeoutMs: 120_000,
        },
        nextBody: nextInt64Body,
      });
    }
    case 'json-server': {
      const dir = makeTempDir('json-server');
      const db = join(dir, 'db.json');
      writeFileSync(db, '{ "plants": [] }\n');
      const bin = join(context.root, 'bench', 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');
      const runs = await runServerTarget(context, {
        key,
        spec: {
          name: 'json-server',
          args: (port) => [bin, '--quiet', '--host', '127.0.0.1', '--port', String(port), db],
          env: serverEnv(context),
          cwd: dir,
          readyPath: '/plants',
        },
        nextBody: nextSafeIntegerBody,
      });
      runs[0]?.notes.push(
        'json-server 0.17 keeps every plant in one JSON file that it rewrites on each create, so its rate falls as the file grows; it has no auth and reads ids as doubles, so it gets small ids',
      );
      return runs;
    }
    case 'pgbench': {
      const url = requirePostgres(context);
      await resetBenchDatabase(url);
      await createPgbenchTable(url);
      const run: TargetRun = { key, label: TARGET_LABELS.pgbench, levels: [], notes: [] };
      for (const connections of context.options.connections) {
        await checkpoint(url);
        const figures = await runPgbench(url, connections, context.options.durationSeconds);
        context.log(describeLevel(figures));
        run.levels.push(figures);
      }
      run.notes.push(
        'pgbench -M prepared, -j 2 (or 1 at c1), one INSERT ... ON CONFLICT DO NOTHING a transaction, random ids; p50/p99 from its per-transaction log',
      );
      return [run];
    }
    case 'bare-pg': {
      const url = requirePostgres(context);
      await resetBenchDatabase(url);
      return runServerTarget(context, {
        key,
        spec: nodeServer(context, 'node:http + pg', [baselinePath(context, 'bare-http.ts'), '--pg', url]),
        nextBody: nextInt64Body,
        beforeLevel: () => checkpoint(url),
      });
    }
    case 'postgres-single': {
      // The service with group commit off, one INSERT per create: what group commit is measured against.
      const url = requirePostgres(context);
      const args = apiArgs(context);
      await resetBenchDatabase(url);
      return runServerTarget(context, {
        key,
        spec: nodeServer(context, 'service (PostgreSQL, GROUP_COMMIT=off)', args, {
          DATABASE_URL: url,
          GROUP_COMMIT: 'off',
        }),
        nextBody: nextInt64Body,
        beforeLevel: () => checkpoint(url),
      });
    }
    case 'pg-get':
    case 'pg-list':
      return [await runReads(context, key)];
    case 'webhook':
      return [await runWebhook(context)];
    case 'hostile':
      return [await runHostileBodies(context)];
    case 'jwt-es256':
    case 'jwt-rs256': {
      // The service on memory: with JWT on, loaded with one access token of the bench's provider (the
      // verified-token cache then answers after the first request, as for a client reusing its token).
      const provider = await startBenchProvider();
      try {
        const runs = await runServerTarget(context, {
          key,
          token: await provider.token(key === 'jwt-es256' ? 'ES256' : 'RS256'),
          spec: {
            ...nodeServer(context, `service (memory:, ${key})`, apiArgs(context), {
              DATABASE_URL: 'memory:',
              JWT_ISSUER: provider.issuer,
              JWT_JWKS_URL: provider.jwksUrl,
              JWT_AUDIENCE: BENCH_AUDIENCE,
            }),
            readyPath: '/readyz',
          },
          nextBody: nextInt64Body,
        });
        runs[0]?.notes.push(
          'one access token for the whole run, as a client reuses its token until it expires',
        );
        return runs;
      } finally {
        await provider.close();
      }
    }
    case 'postgres':
    case 'growth': {
      const url = requirePostgres(context);
      const args = apiArgs(context);
      await resetBenchDatabase(url);
      const withGrowth = context.selected.has('growth');
      return runServerTarget(context, {
        key: 'postgres',
        spec: nodeServer(context, 'service (PostgreSQL)', args, { DATABASE_URL: url }),
        nextBody: nextInt64Body,
        // Asked for the growth run alone, the empty-table figure it compares to is c64 only.
        ...(context.selected.has('postgres') ? {} : { connections: [64] }),
        beforeLevel: () => checkpoint(url),
        afterLevels: async (child) => (withGrowth ? [await runGrowth(context, url, child)] : []),
      });
    }
  }
}
