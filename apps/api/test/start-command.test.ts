import { spawn } from 'node:child_process';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

/** A start script, `[NAME=value ...] node [flags] <entry.js>`, as its environment and its command. */
function startScript(manifest: string): { env: Record<string, string>; command: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, value] = (words.shift() as string).split('=', 2) as [string, string];
    env[name] = value;
  }
  return { env, command: words };
}

// `pnpm start`, the Docker image and the bench (which reads the root start script) must run the
// service with the same Node flags and environment: the figures in BENCHMARKS.md are those of that command.
describe('the command that starts the service', () => {
  const rootScript = startScript('package.json');

  it('when the Docker image starts the api, then it runs exactly the root start script, its variables set by ENV', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(cmd).toBeDefined();
    expect(JSON.parse(cmd ?? '[]')).toEqual(rootScript.command);
    const env = Object.fromEntries(
      [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((line) =>
        (line[1] as string).split(/\s+/).map((pair) => pair.split('=', 2) as [string, string]),
      ),
    );
    expect(env).toMatchObject(rootScript.env);
  });

  it("when the api package's own start script runs, then it passes the same Node flags and variables", () => {
    const api = startScript('apps/api/package.json');
    const flags = (words: string[]) => words.filter((word) => word.startsWith('--'));
    expect(flags(api.command)).toEqual(flags(rootScript.command));
    expect(api.env).toEqual(rootScript.env);
    expect(flags(rootScript.command)).toContain('--max-semi-space-size=8');
    expect(rootScript.env).toEqual({ MALLOC_ARENA_MAX: '2' });
  });
});

describe('`pnpm start` at a terminal', () => {
  // It builds first (turbo), then starts: seconds, more while every package's tests run.
  it("when the start is refused, then stdout and stderr hold the service's one line and nothing of pnpm's or turbo's (no banner, no ELIFECYCLE)", {
    timeout: 180_000,
  }, async () => {
    // Only what pnpm needs: nothing of this test run's own pnpm or turbo settings reaches it.
    const child = spawn('pnpm', ['start'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'plant-store cannot start: PORT must be a whole number from 0 to 65535, not "eighty"\n',
    });
  });
});

describe('`pnpm dev`', () => {
  it('when a source of a workspace package it runs changes, then the service restarts from the sources', {
    timeout: 120_000,
  }, async () => {
    // A group of its own, so that the test can end pnpm, Node's watcher and the service at once.
    const child = spawn('pnpm', ['dev'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: '0',
        DATABASE_URL: 'memory:',
        API_TOKENS: 'dev-token',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.resume();
    const listening = () =>
      stdout
        .split('\n')
        .filter((line) => line.includes('"msg":"listening"'))
        .map((line) => JSON.parse(line) as { pid: number; url: string });
    const until = async (done: () => boolean) => {
      while (!done()) {
        if (child.exitCode !== null) throw new Error(`pnpm dev exited: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await until(() => listening().length === 1);
      // A change as an editor's save makes it (the content is the same: the checkout stays as it is).
      const now = new Date();
      utimesSync(join(root, 'packages', 'domain', 'src', 'index.ts'), now, now);
      await until(() => listening().length === 2);
      const [first, second] = listening();
      expect(second?.pid).not.toBe(first?.pid);
      expect(stdout).toContain(`Change detected in '${join(root, 'packages', 'domain', 'src', 'index.ts')}'`);
      const answer = await fetch(`${second?.url}/plants`, { headers: { Authorization: 'Bearer dev-token' } });
      expect(answer.status).toBe(200);
    } finally {
      const closed = new Promise((resolve) => child.on('close', resolve));
      process.kill(-(child.pid as number), 'SIGTERM');
      await closed;
    }
  });
});
