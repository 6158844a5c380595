// Stopping never hangs, whatever state stdout is in (DESIGN.md, "Hostile clients"; issue 9, item 12):
// the service as a child process, its stdout a pipe whose reader is gone, a closed descriptor, or a
// pipe nobody reads; then SIGTERM or SIGINT. And a fault nothing caught ends the process, non-zero.
import type { ChildProcess } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BUSY_MACHINE_SLACK_MS, freePort } from '@plant-store/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reportDrill } from './support/drill-report.ts';
import { killLeftoverRuns, runMain, type StdoutState } from './support/run-main.ts';

const FAULT_TRIGGER = fileURLToPath(new URL('./support/fault-trigger.mjs', import.meta.url));
const SIGNAL_ON_LISTEN = fileURLToPath(new URL('./support/signal-on-listen.mjs', import.meta.url));
const TOKEN = 'stopping-token-123';
const SHUTDOWN_TIMEOUT_MS = 2_000;
// DESIGN.md: a signal ends the process within SHUTDOWN_TIMEOUT_MS plus a second; past that and a busy
// machine's slack, it is taken for one that never ends.
const ENDED_BOUND_MS = SHUTDOWN_TIMEOUT_MS + 1_000 + BUSY_MACHINE_SLACK_MS;

afterEach(killLeftoverRuns);

const figures: Record<string, number> = {};
afterAll(() =>
  reportDrill('stopping', { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS, msFromSignalToExit: figures }),
);

/** The entry point with the fault trigger loaded, on a port chosen here (stdout may not be readable). */
function start(stdout: StdoutState, port: number, env: NodeJS.ProcessEnv = {}) {
  return runMain(
    {
      PATH: process.env.PATH,
      API_TOKENS: TOKEN,
      DATABASE_URL: 'memory:',
      HOST: '127.0.0.1',
      PORT: String(port),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ...env,
    },
    { stdout, nodeArgs: ['--import', FAULT_TRIGGER] },
  );
}

async function healthy(port: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Requests enough for their log lines to fill a pipe nobody reads many times over. */
async function logALot(port: number): Promise<void> {
  for (let batch = 0; batch < 20; batch += 1) {
    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        fetch(`http://127.0.0.1:${port}/plants`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            'Content-Type': 'application/json',
            'X-Request-Id': 'x'.repeat(128),
          },
          body: JSON.stringify({ id: batch * 50 + index, name: 'logged' }),
        }).then((response) => response.status),
      ),
    );
  }
}

function ended(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function endsWithin(
  child: ChildProcess,
  boundMs: number,
): Promise<{ code: number | null; ms: number } | 'still running'> {
  const startedAt = performance.now();
  const outcome = await Promise.race([
    ended(child),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), boundMs).unref()),
  ]);
  if (outcome === 'still running') return outcome;
  return { code: outcome.code, ms: Math.round(performance.now() - startedAt) };
}

describe('stopping, whatever state stdout is in', () => {
  const cases = (['broken', 'closed', 'stalled'] as const).flatMap((stdout) =>
    (['SIGTERM', 'SIGINT'] as const).map((signal) => [stdout, signal] as const),
  );

  it.each(cases)(
    'when stdout is %s and %s comes after a thousand logged requests, then the process ends with 0 within SHUTDOWN_TIMEOUT_MS plus a second',
    async (stdout, signal) => {
      const port = await freePort();
      const { child } = start(stdout, port);
      await healthy(port);
      await logALot(port);
      child.kill(signal);
      const outcome = await endsWithin(child, ENDED_BOUND_MS);
      expect(outcome).toEqual({ code: 0, ms: expect.any(Number) });
      if (outcome !== 'still running') figures[`${stdout} ${signal}`] = outcome.ms;
    },
    90_000,
  );
});

describe('a fault nothing caught', () => {
  it.each(['exception', 'rejection'])(
    'when an uncaught %s happens, then it is logged as fatal and the process exits 1',
    async (fault) => {
      const port = await freePort();
      const run = start('read', port, { PLANT_STORE_TEST_FAULT: fault });
      const { child } = run;
      await healthy(port);
      child.kill('SIGUSR2');
      const outcome = await endsWithin(child, ENDED_BOUND_MS);
      expect(outcome).toEqual({ code: 1, ms: expect.any(Number) });
      const fatal = run
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
        .find((line) => line.level === 60);
      expect(fatal).toMatchObject({
        msg: fault === 'exception' ? 'uncaught exception' : 'unhandled promise rejection',
        err: { message: fault === 'exception' ? 'a throw nobody caught' : 'a promise nobody awaited' },
      });
    },
    60_000,
  );
});

describe('a signal while the service starts', () => {
  it('when SIGTERM comes the moment it listens, before its start has returned, then it stops as it would later, and exits 0', async () => {
    const port = await freePort();
    const run = runMain(
      {
        PATH: process.env.PATH,
        API_TOKENS: TOKEN,
        DATABASE_URL: 'memory:',
        HOST: '127.0.0.1',
        PORT: String(port),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      },
      { nodeArgs: ['--import', SIGNAL_ON_LISTEN] },
    );
    const outcome = await endsWithin(run.child, ENDED_BOUND_MS);
    expect(outcome).toEqual({ code: 0, ms: expect.any(Number) });
    expect(run.stdout()).toContain('"msg":"signal received"');
    expect(run.stdout()).toContain('"msg":"stopped"');
  });

  it('when SIGTERM comes while the database does not answer, then the start is given up within SHUTDOWN_TIMEOUT_MS plus a second, and it exits 1', async () => {
    // A "database" that takes connections and never says a word: the start waits on it.
    const held: Socket[] = [];
    const connected = Promise.withResolvers<void>();
    const silent = createServer((socket) => {
      held.push(socket);
      connected.resolve();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port: databasePort } = silent.address() as { port: number };
    try {
      const run = runMain({
        PATH: process.env.PATH,
        API_TOKENS: TOKEN,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${databasePort}/plants?connect_timeout=600`,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      });
      await connected.promise;
      run.child.kill('SIGTERM');
      const outcome = await endsWithin(run.child, ENDED_BOUND_MS);
      expect(outcome).toEqual({ code: 1, ms: expect.any(Number) });
      // The promise: SHUTDOWN_TIMEOUT_MS plus a second; the rest is room for a busy machine.
      if (outcome !== 'still running') expect(outcome.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1_000 + 5_000);
      expect(run.stdout()).toContain('"msg":"still starting at the deadline: exiting"');
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});
