import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, provideTestPostgres } from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftoverRuns, listeningUrl, runMain } from './support/run-main.ts';

const TOKEN = 'start-refusal-token';
const auth = { Authorization: `Bearer ${TOKEN}` };

afterEach(killLeftoverRuns);

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-refusals-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));

function create(url: string, id: number, name: string): Promise<Response> {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });
}

// Each starts the service on PGlite, which takes seconds, more while every package's tests run.
describe('one service per embedded data folder', { timeout: 120_000 }, () => {
  it('when a second service is started on a data folder in use, then it says so in one line naming the folder and the first one, and exits 1; the first goes on serving', async () => {
    const folder = join(tempDir, 'shared');
    const first = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    const url = await listeningUrl(first);
    expect((await create(url, 1, 'Monstera')).status).toBe(200);

    // As the port-in-use message suggests: another PORT, the same (default) folder.
    const second = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(
      new RegExp(
        `^plant-store cannot start: the data folder ${folder} is in use by process ${first.child.pid} ` +
          `on ${hostname()} \\(since [0-9T:.-]+Z\\): one process at a time may use it; stop that one, ` +
          'or give this one a folder of its own \\(DATABASE_URL=pglite:<dir>\\)\\n$',
      ),
    );
    expect(second.stdout()).not.toContain('"msg":"listening"');

    const read = await fetch(`${url}/plants/1`, { headers: auth });
    expect(await read.json()).toEqual({ name: 'Monstera' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('when the service holding the folder was killed with SIGKILL, then the next start on it works, and every plant answered 200 is there', async () => {
    const folder = join(tempDir, 'killed');
    const first = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    const firstUrl = await listeningUrl(first);
    for (const id of [1, 2, 3]) expect((await create(firstUrl, id, `plant ${id}`)).status).toBe(200);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    const next = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    const url = await listeningUrl(next);
    const listed = await fetch(`${url}/plants`, { headers: auth });
    expect(await listed.json()).toEqual([1, 2, 3].map((id) => ({ id, name: `plant ${id}` })));
    expect((await create(url, 4, 'after the kill')).status).toBe(200);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(next.stderr()).toBe('');
  });
});

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

describe.skipIf(!server)('a PostgreSQL database that does not store UTF8', () => {
  // A database of this run's own, so that runs at once never meet; dropped afterwards.
  const latin1 = `plant_store_latin1_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: server?.connectionString });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  afterAll(() => admin(`drop database if exists ${latin1} with (force)`));

  it('when the service is started on it, then it says so in one line naming the database and its encoding, and exits 1', async () => {
    await admin(`create database ${latin1} encoding 'LATIN1' template template0 lc_collate 'C' lc_ctype 'C'`);
    const url = new URL(server?.connectionString ?? '');
    url.pathname = `/${latin1}`;
    url.searchParams.delete('options');
    const run = runMain({ API_TOKENS: TOKEN, DATABASE_URL: url.toString(), PORT: '0' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(
      `plant-store cannot start: the database "${latin1}" is encoded LATIN1, not UTF8: plants may hold any ` +
        `Unicode text; use a database created with ENCODING 'UTF8' (createdb -E UTF8 -T template0)\n`,
    );
  });
});

describe.skipIf(!server)('a PostgreSQL database that does not exist', () => {
  it('when the service is started on it, then it says so in one line, once, without a stack, and exits 1', async () => {
    const missing = `plant_store_missing_${randomBytes(6).toString('hex')}`;
    const url = new URL(server?.connectionString ?? '');
    url.pathname = `/${missing}`;
    url.searchParams.delete('options');
    const run = runMain({ API_TOKENS: TOKEN, DATABASE_URL: url.toString(), PORT: '0' });
    expect(await run.exited).toBe(1);
    const reason = `database "${missing}" does not exist: create it, or set DATABASE_URL to a database that exists`;
    expect(run.stderr()).toBe(`plant-store cannot start: ${reason}\n`);
    expect(fatalLines(run.stdout())).toEqual([{ reason, msg: 'could not start' }]);
  });
});

describe('a PostgreSQL server that refuses the connection', () => {
  it('when the service is started on a port nothing listens on, then it says so in one line, once, without a stack, and exits 1', async () => {
    const port = await freePort();
    const run = runMain({
      API_TOKENS: TOKEN,
      DATABASE_URL: `postgres://plants@127.0.0.1:${port}/plants`,
      PORT: '0',
    });
    expect(await run.exited).toBe(1);
    const reason =
      `the database is unavailable: connect ECONNREFUSED 127.0.0.1:${port}: ` +
      'start the database server, or set DATABASE_URL to one that runs';
    expect(run.stderr()).toBe(`plant-store cannot start: ${reason}\n`);
    expect(fatalLines(run.stdout())).toEqual([{ reason, msg: 'could not start' }]);
  });
});

/** The fatal log lines of a run, without the fields every line has: what the operator reads in the logs. */
function fatalLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 60)
    .map(({ level: _level, time: _time, pid: _pid, hostname: _hostname, ...rest }) => rest);
}
