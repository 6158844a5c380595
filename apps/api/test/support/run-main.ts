import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
// The workspace's packages run from their TypeScript sources, as `pnpm start` runs them.
const NODE_FLAGS = ['--conditions=@plant-store/source'];

/** One run of the service's entry point as a child process. */
export interface Run {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code; null when a signal ended it. */
  exited: Promise<number | null>;
}

const runs: Run[] = [];

/** Kills (SIGKILL) every run still alive: for afterEach, so that a failed test leaves no process behind. */
export function killLeftoverRuns(): void {
  for (const run of runs.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
}

/** What the run's standard output is: read by the test (the default), or a hostile state of it. */
export type StdoutState = 'read' | 'broken' | 'closed' | 'stalled';

export interface RunOptions {
  /** More Node flags, before the entry point (e.g. `--import` a test hook). */
  readonly nodeArgs?: readonly string[];
  /**
   * `broken`: a pipe whose reader is gone; `closed`: descriptor 1 closed (a shell closes it, then becomes
   * node); `stalled`: a pipe nobody reads, which fills up and stays full. Not `read`: stdout() is empty.
   */
  readonly stdout?: StdoutState;
  /** A command the run is started through, with its arguments (e.g. `prlimit --nofile=256:256`). */
  readonly through?: readonly string[];
  /** Its working directory (where a .env is looked for); the test's own by default. */
  readonly cwd?: string;
}

/** Runs the service's entry point as `node <source condition> src/main.ts` with exactly this environment. */
export function runMain(env: NodeJS.ProcessEnv, options: RunOptions = {}): Run {
  const node = [
    ...(options.through ?? []),
    process.execPath,
    ...NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    MAIN,
  ];
  const state = options.stdout ?? 'read';
  const child =
    state === 'closed'
      ? spawn('/bin/sh', ['-c', 'exec "$@" >&-', 'sh', ...node], {
          env,
          cwd: options.cwd,
          stdio: ['ignore', 'ignore', 'pipe'],
        })
      : spawn(node[0] as string, node.slice(1), { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  if (state === 'read') {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
  }
  if (state === 'broken') child.stdout?.destroy();
  if (state === 'stalled') child.stdout?.pause();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const run = { child, stdout: () => stdout, stderr: () => stderr, exited };
  runs.push(run);
  return run;
}

/**
 * Resolves once the run has written text that `written` accepts on `stream`. stdout and stderr are
 * two pipes: that one has arrived says nothing about the other, so each is waited for on its own.
 */
export async function waitForOutput(
  run: Run,
  stream: 'stdout' | 'stderr',
  written: (text: string) => boolean,
): Promise<string> {
  for (;;) {
    const text = run[stream]();
    if (written(text)) return text;
    if (run.child.exitCode !== null) throw new Error(`main exited before writing it: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The URL from the 'listening' log line, once it is written. */
export async function listeningUrl(run: Run): Promise<string> {
  for (;;) {
    const line = run
      .stdout()
      .split('\n')
      .find((l) => l.includes('"msg":"listening"'));
    if (line !== undefined) return (JSON.parse(line) as { url: string }).url;
    if (run.child.exitCode !== null) throw new Error(`main exited: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
