// What every comparison shares: servers started as child processes (as a user starts them), a load of
// keep-alive connections from autocannon, each segment's CPU time and peak memory read from /proc, and
// the groups of servers that are up at once and loaded in turn, round after round.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { freePort } from '@plant-store/test-support';
import autocannon from 'autocannon';
import { type Figures, format, summarize, type TargetRun } from './report.ts';

export interface Options {
  readonly durationSeconds: number;
  /** Unmeasured load on a server when it starts, at c16: long enough for its code to settle. */
  readonly warmupSeconds: number;
  /** Unmeasured load on each server before each level's rounds, at that level's concurrency. */
  readonly levelWarmupSeconds: number;
  readonly rounds: number;
  readonly connections: number[];
  /** Parts or side keys; absent: everything, and the run writes latest.json and BENCHMARKS.md. */
  readonly only?: string[];
}

export interface Context {
  readonly root: string;
  /** A fresh token each run, given to the service and to every baseline alike. */
  readonly token: string;
  readonly options: Options;
  /** The bench database, or why there is none. */
  readonly postgres: { readonly url: string } | { readonly problem: string };
  readonly log: (line: string) => void;
}

/** A comparison: a group of sides the bench runs together. */
export interface Part {
  readonly name: string;
  /** Its sides that --only may pick one by one (a baseline is not added by itself). */
  readonly keys: readonly string[];
  readonly usesPostgres: boolean;
  readonly run: (context: Context) => Promise<TargetRun[]>;
}

export function selected(context: Context, part: string, key: string): boolean {
  const { only } = context.options;
  return only === undefined || only.includes(part) || only.includes(key);
}

export function postgresUrl(context: Context): string {
  if ('problem' in context.postgres) throw new Error(`PostgreSQL unavailable: ${context.postgres.problem}`);
  return context.postgres.url;
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** Kills every child and removes every scratch folder: synchronous, for an 'exit' handler. */
export function cleanUp(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `plant-store-bench-${name}-`));
  tempDirs.add(dir);
  return dir;
}

/** A server under test: a child process, or the image's container. */
export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  exited(): boolean;
  /** Its last lines of output, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

export async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false; // Not listening yet.
  }
}

/** Polls `url` until it answers 2xx; fails when `gone()` says the server ended, or after `timeoutMs`. */
export async function waitReady(
  url: string,
  name: string,
  gone: () => string | undefined,
  timeoutMs: number,
) {
  const started = performance.now();
  while (!(await answersOk(url))) {
    const why =
      gone() ?? (performance.now() - started > timeoutMs ? `not ready within ${timeoutMs} ms` : undefined);
    if (why !== undefined) throw new Error(`${name}: ${why}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Node (this binary) with `args` on a free loopback port (PORT), ready once `readyPath` answers 200. */
export async function startNode(
  name: string,
  args: (port: number) => readonly string[],
  env: NodeJS.ProcessEnv,
  more: { readonly cwd?: string; readonly readyPath?: string; readonly timeoutMs?: number } = {},
): Promise<Child> {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, args(port), {
      cwd: more.cwd,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const lines: string[] = [];
  // Both streams are read to the end, or a chatty child would block on a full pipe.
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 40) lines.shift();
    });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (exited()) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const output = () => lines.join('\n');
  try {
    const gone = () => (exited() ? `exited before it was ready:\n${output()}` : undefined);
    await waitReady(`${url}${more.readyPath ?? '/healthz'}`, name, gone, more.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { name, pid: child.pid ?? -1, url, exited, output, stop };
}

/** Nothing of the bench's own environment leaks in (a DATABASE_URL set in the shell, say). */
export function serverEnv(context: Context, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
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

/**
 * The service as `pnpm start` runs it: the root package.json's start script,
 * `[NAME=value ...] node <flags> <entry.js>`, its variables and flags included, with `env` added.
 */
export function startService(
  context: Context,
  name: string,
  env: NodeJS.ProcessEnv,
  more: { readonly cwd?: string; readonly readyPath?: string } = {},
) {
  const manifest = JSON.parse(readFileSync(join(context.root, 'package.json'), 'utf8'));
  const words: string[] = (manifest.scripts?.start ?? '').split(/\s+/);
  const own: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [variable, ...value] = (words.shift() as string).split('=');
    own[variable as string] = value.join('=');
  }
  const [command, ...args] = words;
  if (command !== 'node' || !/\.js$/.test(args.at(-1) ?? ''))
    throw new Error(`the root start script is not "[NAME=value ...] node [flags] <entry.js>"`);
  const main = join(context.root, args.pop() as string);
  return startNode(name, () => [...args, main], serverEnv(context, { ...own, ...env }), {
    ...more,
    timeoutMs: 120_000,
  });
}

/** A script of bench/src/baselines, started as the service is (PORT, HOST, API_TOKENS). */
export function startBaseline(context: Context, name: string, file: string, args: string[] = []) {
  const path = join(context.root, 'bench', 'src', 'baselines', file);
  return startNode(name, () => [path, ...args], serverEnv(context));
}

/** CPU time (user + system) a process has used, in seconds; NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime and stime: fields 14 and 15, counted after the command name (in parentheses, may hold spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total CPU time of the whole machine, in seconds of all cores. */
export function machineCpu(): { busy: number; total: number } {
  const ticks = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = ticks.reduce((sum, tick) => sum + tick, 0);
  return { busy: (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / 100, total: total / 100 };
}

const busyPercent = (before: ReturnType<typeof machineCpu>, after = machineCpu()) =>
  ((after.busy - before.busy) / (after.total - before.total)) * 100;

/** A `kB` field of /proc/<pid>/status in bytes (VmRSS, VmHWM); undefined when the process is gone. */
export function statusBytes(pid: number, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The peak resident memory of a process from now on: the kernel's high-water mark (VmHWM), reset by
 * writing 5 to clear_refs; where that is not allowed, a 50 ms poll of VmRSS.
 */
function peakRss(pid: number): () => number | undefined {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return () => statusBytes(pid, 'VmHWM');
  } catch {
    let highest = 0;
    const poll = setInterval(() => {
      highest = Math.max(highest, statusBytes(pid, 'VmRSS') ?? 0);
    }, 50);
    return () => {
      clearInterval(poll);
      return highest || undefined;
    };
  }
}

/**
 * What a load sends: `method` (POST with a body, GET without, by default) to `path()` (`/plants` by
 * default), with `body()` as JSON and `headers` beside the token; answers of status `expect` (default
 * 2xx) count as ok.
 */
export interface Traffic {
  readonly token: string;
  readonly method?: 'GET' | 'POST' | 'PUT';
  readonly body?: () => string;
  readonly path?: () => string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly expect?: number;
}

const methodOf = (traffic: Traffic) => traffic.method ?? (traffic.body ? 'POST' : 'GET');

/** A request's headers: the token, the body's type when there is one, and the traffic's own. */
const headersOf = (traffic: Traffic) => ({
  authorization: `Bearer ${traffic.token}`,
  ...(traffic.body ? { 'content-type': 'application/json' } : {}),
  ...traffic.headers,
});

/** The one payload every create gets; only the id changes. */
export const plantBody = (id: bigint | number) => `{"id":${id},"name":"Monstera deliciosa","tag":"aroid"}`;

// Unique across the run, from a random point in [2^53, 2^62): ids a double cannot hold, and no collision with the last run.
let nextId = 2n ** 53n + (BigInt(`0x${randomBytes(8).toString('hex')}`) % (2n ** 62n - 2n ** 54n));
export const freshId = () => ++nextId;
export const freshPlant = () => plantBody(freshId());

export type Load = Omit<
  Figures,
  'cpuUsPerRequest' | 'serverCpuPercent' | 'peakRssBytes' | 'machineCpuPercent'
>;

/** autocannon for `seconds` on keep-alive connections, one request in flight each; latencies kept in microseconds. */
export async function load(
  url: string,
  connections: number,
  seconds: number,
  traffic: Traffic,
): Promise<Load> {
  const latencyUs = createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 });
  const { body, path } = traffic;
  let ok = 0;
  let other = 0;
  const request: autocannon.Request = {
    method: methodOf(traffic),
    setupRequest: (sent) => ({ ...sent, path: path?.() ?? '/plants', ...(body ? { body: body() } : {}) }),
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        timeout: 10,
        headers: headersOf(traffic),
        requests: [request],
      },
      (error, result) => {
        clearTimeout(hardStop);
        if (error) reject(error);
        else resolve(result);
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      const expected =
        traffic.expect === undefined ? status >= 200 && status < 300 : status === traffic.expect;
      if (!expected) other += 1;
      else {
        ok += 1;
        latencyUs.record(Math.max(1, Math.round(ms * 1000)));
      }
    });
    // autocannon ends by itself; this only guards against a hung server.
    const hardStop = setTimeout(() => instance.stop(), seconds * 1000 + 30_000);
  });
  const used = process.cpuUsage(cpu);
  const percentile = (p: number) => (ok === 0 ? Number.NaN : latencyUs.percentile(p) / 1000);
  return {
    connections,
    seconds: result.duration,
    rps: ok / result.duration,
    ok,
    errors: other + result.errors,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    loadCpuPercent: (used.user + used.system) / 10 / (performance.now() - started),
  };
}

/** One segment of load on a server, with its CPU time and peak memory under it. */
export async function measure(
  child: Child,
  connections: number,
  seconds: number,
  traffic: Traffic,
): Promise<Figures> {
  const peak = peakRss(child.pid);
  const cpuBefore = cpuSeconds(child.pid);
  const machineBefore = machineCpu();
  const figures = await load(child.url, connections, seconds, traffic);
  const machineCpuPercent = busyPercent(machineBefore);
  const cpu = cpuSeconds(child.pid) - cpuBefore;
  const peakRssBytes = peak();
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.output()}`);
  if (figures.ok === 0) throw new Error(`${child.name} answered no request as expected:\n${child.output()}`);
  return {
    ...figures,
    cpuUsPerRequest: (cpu * 1e6) / figures.ok,
    serverCpuPercent: (cpu / figures.seconds) * 100,
    ...(peakRssBytes === undefined ? {} : { peakRssBytes }),
    machineCpuPercent,
  };
}

/** One request of `traffic` before any load, so that a server that refuses it fails loudly instead of measuring its errors. */
export async function checkOnce(child: Child, traffic: Traffic): Promise<{ text: string; headers: Headers }> {
  const response = await fetch(`${child.url}${traffic.path?.() ?? '/plants'}`, {
    method: methodOf(traffic),
    headers: headersOf(traffic),
    ...(traffic.body ? { body: traffic.body() } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (traffic.expect === undefined ? !response.ok : response.status !== traffic.expect)
    throw new Error(`${child.name} answered ${response.status} before the load: ${text.slice(0, 300)}`);
  return { text, headers: response.headers };
}

/** A side once started: segments of load, unmeasured load before a level's first round, and its end. */
export interface Started {
  readonly measure: (connections: number, seconds: number) => Promise<Figures>;
  readonly warm?: (connections: number) => Promise<unknown>;
  readonly stop: () => Promise<void>;
}

/** One server of a group (or pgbench), with what it is compared to. */
export interface Side {
  readonly key: string;
  readonly label: string;
  readonly baselines?: readonly string[];
  /** The levels it takes part in; every level when absent. */
  readonly levels?: readonly number[];
  readonly start: (run: TargetRun) => Promise<Started>;
}

/**
 * A server side: launched (or one the part started, `shared`), checked with one request, loaded for
 * the warm-up at c16, then measured segment by segment, `before` each (a CHECKPOINT on PostgreSQL).
 */
export function serverSide(
  context: Context,
  spec: Omit<Side, 'start'> & {
    readonly launch: (run: TargetRun) => Promise<Child>;
    readonly traffic: Traffic;
    readonly shared?: boolean;
    readonly before?: () => Promise<unknown>;
    readonly check?: (child: Child) => Promise<unknown>;
    /** After every load (warm-ups too), awaited, its CPU counted into the segment's: the webhook's deliveries. */
    readonly settle?: (child: Child) => Promise<unknown>;
  },
): Side {
  const { launch, traffic, shared, before, check, settle, ...side } = spec;
  return {
    ...side,
    start: async (run) => {
      const child = await launch(run);
      try {
        context.log(`  ${spec.label}: up at ${child.url} (pid ${child.pid})`);
        await (check ?? ((server: Child) => checkOnce(server, traffic)))(child);
        await load(child.url, 16, context.options.warmupSeconds, traffic);
        await settle?.(child);
      } catch (error) {
        if (!shared) await child.stop();
        throw error;
      }
      return {
        measure: async (connections, seconds) => {
          await before?.();
          const figures = await measure(child, connections, seconds, traffic);
          if (settle === undefined) return figures;
          const cpu = cpuSeconds(child.pid);
          await settle(child);
          const settling = ((cpuSeconds(child.pid) - cpu) * 1e6) / figures.ok;
          return { ...figures, cpuUsPerRequest: (figures.cpuUsPerRequest ?? 0) + settling };
        },
        warm: async (connections) => {
          await load(child.url, connections, context.options.levelWarmupSeconds, traffic);
          await settle?.(child);
        },
        stop: shared ? async () => {} : () => child.stop(),
      };
    },
  };
}

export const segmentSeconds = (options: Options) => Math.max(1, options.durationSeconds / options.rounds);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The sides of a group, all up at once; at each level every side first gets unmeasured load at that
 * level's concurrency (one that sat idle through the level before runs its first segment slower),
 * then `rounds` rounds in `order` (the sides' own by default; a key may come back, as plain does
 * between hostile bodies), then a closing segment of every baseline, so that every subject segment
 * has one of its baseline just before and just after it. A side that fails is reported, the others go on.
 */
export async function runGroup(
  context: Context,
  sides: readonly Side[],
  more: {
    readonly order?: readonly string[];
    readonly connections?: number[];
    readonly seconds?: number;
  } = {},
): Promise<TargetRun[]> {
  const { rounds } = context.options;
  const seconds = more.seconds ?? segmentSeconds(context.options);
  const runs = new Map<string, TargetRun>(
    sides.map(({ key, label, baselines }) => [
      key,
      { key, label, baselines: baselines ?? [], segments: [], notes: [] },
    ]),
  );
  const started = new Map<string, Started>();
  const fail = async (key: string, error: unknown) => {
    const run = runs.get(key) as TargetRun;
    run.error = message(error);
    context.log(`  FAILED (${run.label}): ${run.error}`);
    await started.get(key)?.stop();
    started.delete(key);
  };
  let seq = 0;
  try {
    for (const side of sides) {
      try {
        started.set(side.key, await side.start(runs.get(side.key) as TargetRun));
      } catch (error) {
        await fail(side.key, error);
      }
    }
    for (const c of more.connections ?? context.options.connections) {
      const at = (key: string) => (sides.find((side) => side.key === key)?.levels ?? [c]).includes(c);
      const order = (more.order ?? sides.map((side) => side.key)).filter(
        (key) => started.has(key) && at(key),
      );
      const keys = [...new Set(order)];
      if (keys.length === 0) continue;
      const baselines = new Set(
        sides.flatMap((side) => (keys.includes(side.key) ? (side.baselines ?? []) : [])),
      );
      context.log(`  c${c}: ${rounds} rounds of ${seconds.toFixed(2)} s segments`);
      for (const key of keys)
        await started
          .get(key)
          ?.warm?.(c)
          .catch((error) => fail(key, error));
      for (let round = 1; round <= rounds + 1; round += 1) {
        const closing = round > rounds;
        const line: string[] = [];
        for (const key of closing ? keys.filter((key) => baselines.has(key)) : order) {
          const side = started.get(key);
          if (side === undefined) continue;
          try {
            const figures = await side.measure(c, seconds);
            (runs.get(key) as TargetRun).segments.push({
              ...figures,
              round,
              seq: seq++,
              ...(closing ? { closing } : {}),
            });
            line.push(`${key} ${format.rps(figures.rps)}/s ${format.rps(figures.cpuUsPerRequest)}us`);
          } catch (error) {
            await fail(key, error);
          }
        }
        context.log(`    ${closing ? 'closing' : `round ${round}`}: ${line.join(', ')}`);
      }
      for (const key of keys) {
        const level = summarize(
          (runs.get(key) as TargetRun).segments.filter((figures) => figures.connections === c),
        );
        context.log(
          `    ${key} c${c}: ${format.rps(level.rps)} req/s, p50 ${format.ms(level.p50Ms)} ms, ` +
            `${format.rps(level.cpuUsPerRequest)} us/req, peak RSS ${format.mb(level.peakRssBytes)}, errors ${level.errors}`,
        );
      }
    }
  } finally {
    for (const key of [...started.keys()].reverse()) await started.get(key)?.stop();
  }
  return [...runs.values()];
}
