// What `pnpm start` runs, compiled as its build compiles it: on the workspace's Node it serves; on a Node
// older than the service's packages allow (the machine's Node 20), it refuses in one line, before loading
// anything that would fail with a stack. Compiled into a folder of this test's own, never the shared dist/,
// which other tests pack while this one runs.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findNode, warnDidNotRun } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_FLOOR, unsupportedNode } from '../src/supported-node.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const api = join(root, 'apps', 'api');
const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));

// The root start script: `NAME=value node [flags] apps/api/dist/<entry>`.
const startWords: string[] = manifest('.').scripts.start.split(/\s+/);
const startEnv = Object.fromEntries(
  startWords.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2) as [string, string]),
);
const [, ...startArgs] = startWords.filter((word) => !/^[A-Z_]+=/.test(word));
const startFlags = startArgs.slice(0, -1);
const entry = startArgs.at(-1) ?? '';
// The same file, compiled here: the build's tsconfig, the workspace's packages read from their sources.
const BUILT = join(api, 'node_modules', '.cache', 'start-entry-test');
const builtEntry = join(BUILT, relative('apps/api/dist', entry));

const NODE_20 = findNode(20);
// CI has Debian's Node 20 beside the workspace's Node 24, so there a missing one fails the run.
if (NODE_20 === undefined) {
  if (process.env.CI) throw new Error('no Node.js 20 on this machine (PATH, /usr/local/bin, /usr/bin)');
  warnDidNotRun('The start on Node 20', 'no Node.js 20 on PATH, in /usr/local/bin or /usr/bin');
}

beforeAll(() => {
  rmSync(BUILT, { recursive: true, force: true });
  const built = spawnSync(
    join(api, 'node_modules', '.bin', 'tsc'),
    ['-p', 'tsconfig.build.json', '--outDir', BUILT, '--customConditions', '@plant-store/source'],
    { cwd: api, encoding: 'utf8' },
  );
  expect(built.status, `${built.stdout}${built.stderr}`).toBe(0);
}, 120_000);

describe("the start command's entry", () => {
  const runs: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const run of runs) if (run.exitCode === null) run.kill('SIGKILL');
  });

  it.skipIf(NODE_20 === undefined)(
    "when pnpm start's entry is run on Node 20, then it refuses in one line naming the Node it needs, and exits 1",
    () => {
      const run = spawnSync(NODE_20 as string, [...startFlags, builtEntry], {
        cwd: root,
        env: { ...startEnv, PATH: process.env.PATH, DATABASE_URL: 'memory:', PORT: '0' },
        encoding: 'utf8',
      });
      const version = spawnSync(NODE_20 as string, ['--version'], { encoding: 'utf8' })
        .stdout.trim()
        .slice(1);
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        status: 1,
        stdout: '',
        stderr:
          `plant-store cannot start: Node.js ${NODE_FLOOR} or later is needed, and this is Node.js ${version}: ` +
          "run it through pnpm (`pnpm start`), which runs the workspace's Node 24\n",
      });
    },
  );

  it('when it is run as pnpm start runs it, on the workspace Node, then it serves and stops on SIGTERM', async () => {
    expect(entry).toBe('apps/api/dist/entry.js');
    const run = spawn(process.execPath, ['--conditions=@plant-store/source', ...startFlags, builtEntry], {
      cwd: root,
      env: {
        ...startEnv,
        PATH: process.env.PATH,
        DATABASE_URL: 'memory:',
        PORT: '0',
        API_TOKENS: 'entry-token',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    runs.push(run);
    let stdout = '';
    run.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const url = await new Promise<string>((resolve, reject) => {
      run.stdout?.on('data', () => {
        const line = stdout.split('\n').find((text) => text.includes('"msg":"listening"'));
        if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
      });
      run.on('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)));
    });
    const answer = await fetch(`${url}/plants`, { headers: { Authorization: 'Bearer entry-token' } });
    expect(answer.status).toBe(200);
    const exited = new Promise((resolve) => run.on('exit', resolve));
    run.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('the Node.js floor', () => {
  it("when the workspace names its engines, then the service's floor is the same", () => {
    expect(manifest('.').engines.node).toBe(`>=${NODE_FLOOR}`);
  });

  it.each([
    { version: '20.20.2', rawJSON: true, supported: false },
    { version: '22.12.0', rawJSON: true, supported: false },
    { version: '24.10.9', rawJSON: true, supported: false },
    { version: '24.11.0', rawJSON: true, supported: true },
    { version: '24.21.0', rawJSON: true, supported: true },
    { version: '24.21.0', rawJSON: false, supported: false },
  ])(
    'when the runtime is Node.js $version (JSON.rawJSON: $rawJSON), then supported is $supported',
    ({ version, rawJSON, supported }) => {
      const why = unsupportedNode(version, rawJSON ? JSON : {});
      expect(why === undefined).toBe(supported);
      if (!supported) expect(why).toContain(`this is Node.js ${version}`);
    },
  );
});
