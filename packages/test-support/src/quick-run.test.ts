// `pnpm test:quick`: what it leaves out is exactly the tests that need a Docker engine or Chromium, as
// vitest itself lists each package's files, and the PostgreSQL server leg asks TEST_DATABASE_URL alone.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { provideTestPostgres } from './postgres.ts';
import { leftOutOfQuickRun, NEEDS_DOCKER_OR_CHROMIUM } from './quick-run.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const vitestCli = join(
  dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);

/** What a test file that needs Docker or Chromium imports: a browser, testcontainers, the drills' engine. */
const HEAVY_IMPORT =
  /^(import [^;]* from |.* = await import\()'(playwright-core|@?testcontainers[^']*|\.\.\/src\/engine\.ts)'/m;

/** The workspace's packages with tests, as `pnpm test` finds them. */
function packagesWithTests(): string[] {
  return [
    ...['packages', 'apps'].flatMap((group) =>
      readdirSync(join(root, group)).map((name) => join(group, name)),
    ),
    'bench',
  ]
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .filter((dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).scripts?.test);
}

/** The test files vitest runs in `dir`, quick or not (`vitest list`, which writes no report). */
async function listedFiles(dir: string, quick: boolean): Promise<string[]> {
  const env = { ...process.env, PLANT_STORE_TEST_QUICK: quick ? '1' : '' };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [vitestCli, 'list', '--filesOnly', '--json'],
    {
      cwd: join(root, dir),
      env,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return (JSON.parse(stdout) as { file: string }[]).map(({ file }) => relative(root, file)).sort();
}

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('pnpm test:quick', () => {
  it('when a package is listed for a quick run, then the files named *.docker.test.ts and *.browser.test.ts are left out, node_modules never looked in', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-quick-'));
    temporary.push(dir);
    for (const file of [
      'test/a.docker.test.ts',
      'src/b.browser.test.ts',
      'test/c.test.ts',
      'node_modules/x/d.docker.test.ts',
    ]) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), '');
    }
    expect(leftOutOfQuickRun(dir, NEEDS_DOCKER_OR_CHROMIUM)).toEqual([
      'src/b.browser.test.ts',
      'test/a.docker.test.ts',
    ]);
  });

  it.each(packagesWithTests())(
    'when the tests of %s are listed for a quick run, then exactly those that need Docker or Chromium are left out',
    async (dir) => {
      const all = await listedFiles(dir, false);
      const heavy = all.filter((file) => HEAVY_IMPORT.test(readFileSync(join(root, file), 'utf8')));
      expect(await listedFiles(dir, true)).toEqual(all.filter((file) => !heavy.includes(file)));
    },
    // Two vitest processes, each starting up: more than the default 30 s on a busy machine.
    120_000,
  );

  it('when TEST_DATABASE_URL is not set in a quick run, then no container is started: the server leg says it did not run', async () => {
    const saved = { url: process.env.TEST_DATABASE_URL, quick: process.env.PLANT_STORE_TEST_QUICK };
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stderr.write;
    try {
      delete process.env.TEST_DATABASE_URL;
      process.env.PLANT_STORE_TEST_QUICK = '1';
      expect(await provideTestPostgres()).toBeUndefined();
    } finally {
      process.stderr.write = write;
      if (saved.url === undefined) delete process.env.TEST_DATABASE_URL;
      else process.env.TEST_DATABASE_URL = saved.url;
      if (saved.quick === undefined) delete process.env.PLANT_STORE_TEST_QUICK;
      else process.env.PLANT_STORE_TEST_QUICK = saved.quick;
    }
    expect(written.join('')).toMatch(
      /PostgreSQL server tests DID NOT RUN\n.*pnpm test:quick starts no container/,
    );
  });
});
