// Child processes: each server under test runs in its own process, started as a user would start
// it, and every child is killed when the bench exits, however it exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { freePort } from '@plant-store/test-support';

const children = new Set<ChildProcess>();

/** Kills every child still running; safe to call from an 'exit' handler (synchronous). */
export function killAllChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export interface ServerSpec {
  readonly name: string;
  /** Node's arguments, given the port the server is to listen on (also passed as PORT). */
  readonly args: (port: number) => readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Polled until it answers 200 before the load starts. */
  readonly readyPath: string;
  readonly startTimeoutMs?: number;
}

export interface RunningChild {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /** The last lines the child printed, for a failure message. */
  recentOutput(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

const KEPT_LINES = 40;

/**
 * Starts a Node server (this same Node binary) on a free loopback port and waits until readyPath
 * answers 200. The port is chosen here rather than read from the server's 'listening' log line:
 * that line is logged at info, and a benchmark runs the service at LOG_LEVEL=warn.
 */
export async function startServer(spec: ServerSpec): Promise<RunningChild> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = track(
    spawn(process.execPath, spec.args(port), {
      cwd: spec.cwd,
      env: { ...spec.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const lines: string[] = [];
  // Both streams are read to the end, or a chatty child would block on a full pipe.
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null) continue;
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
    });
  }
  const exitedEarly = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`${spec.name} exited (${signal ?? code}) before it was ready:\n${lines.join('\n')}`)),
    );
  });
  exitedEarly.catch(() => {});

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(timer);
  };

  const timeoutMs = spec.startTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${spec.name} was not ready within ${timeoutMs} ms:\n${lines.join('\n')}`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([waitForOk(`${url}${spec.readyPath}`), exitedEarly, timedOut]);
    return {
      name: spec.name,
      pid: child.pid ?? -1,
      url,
      recentOutput: () => lines.join('\n'),
      exited: () => child.exitCode !== null || child.signalCode !== null,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `url` answers 2xx within 2 s; false while nothing listens there yet. */
export async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false; // Not listening yet.
  }
}

async function waitForOk(url: string): Promise<void> {
  while (!(await answersOk(url))) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A `kB` field of /proc/<pid>/status, in bytes; undefined when the process is gone. */
export function statusField(pid: number, field: string): number | undefined {
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
 * The resident memory of a process at its peak. The kernel keeps the high-water mark (VmHWM);
 * writing 5 to clear_refs resets it, so each load level gets its own peak. Where the reset is
 * not allowed, a poll of VmRSS every 50 ms stands in for it.
 */
export class PeakRss {
  readonly #pid: number;
  readonly #resetWorks: boolean;
  #polledMax = 0;
  #poller: NodeJS.Timeout | undefined;

  constructor(pid: number) {
    this.#pid = pid;
    let resetWorks = true;
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      resetWorks = false;
    }
    this.#resetWorks = resetWorks;
    if (resetWorks) return;
    this.#poller = setInterval(() => {
      this.#polledMax = Math.max(this.#polledMax, statusField(pid, 'VmRSS') ?? 0);
    }, 50);
    this.#poller.unref();
  }

  /** Bytes: the peak since construction. */
  finish(): number {
    clearInterval(this.#poller);
    const polled = Math.max(this.#polledMax, statusField(this.#pid, 'VmRSS') ?? 0);
    return this.#resetWorks ? Math.max(polled, statusField(this.#pid, 'VmHWM') ?? 0) : polled;
  }
}

/** CPU time (user + system) a process has used, in seconds. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total CPU time of the whole machine, in seconds (all cores). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, tick) => sum + tick, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}
