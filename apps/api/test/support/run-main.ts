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

/** Runs the service's entry point as `node <source condition> src/main.ts` with exactly this environment. */
export function runMain(env: NodeJS.ProcessEnv): Run {
  const child = spawn(process.execPath, [...NODE_FLAGS, MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
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
