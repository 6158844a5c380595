import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { freePort, provideTestPostgres } from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftoverRuns, listeningUrl, type Run, runMain } from './support/run-main.ts';

const TOKEN = 'start-refusal-token';
const auth = { Authorization: `Bearer ${TOKEN}` };

afterEach(killLeftoverRuns);

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-refusals-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));

/** How a start ends: its exit code, or 'listening' when it was not refused after all. */
function startOutcome(run: Run): Promise<number | null | 'listening'> {
  return Promise.race([run.exited, listeningUrl(run).then(() => 'listening' as const)]);
}

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

  it('when a second service is started on the same folder written another way (file:// URL, relative path), then it is refused in one line naming the folder and the first one', async () => {
    const folder = join(tempDir, 'spelled');
    const first = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:file://${folder}`, PORT: '0' });
    const url = await listeningUrl(first);
    expect((await create(url, 1, 'Monstera')).status).toBe(200);

    const inUse = (holder: number | undefined): RegExp =>
      new RegExp(
        `^plant-store cannot start: the data folder ${folder} is in use by process ${holder} on ${hostname()} ` +
          '\\(since [0-9T:.-]+Z\\): one process at a time may use it; [^\\n]*\\n$',
      );
    const second = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    expect(await startOutcome(second)).toBe(1);
    expect(second.stderr()).toMatch(inUse(first.child.pid));
    const third = runMain({
      API_TOKENS: TOKEN,
      DATABASE_URL: `pglite:${relative(process.cwd(), folder)}`,
      PORT: '0',
    });
    expect(await startOutcome(third)).toBe(1);
    expect(third.stderr()).toMatch(inUse(first.child.pid));
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // The plant answered 200 is in the folder that was locked, whichever way it is written.
    const next = runMain({ API_TOKENS: TOKEN, DATABASE_URL: `pglite:${folder}`, PORT: '0' });
    const read = await fetch(`${await listeningUrl(next)}/plants/1`, { headers: auth });
    expect(await read.json()).toEqual({ name: 'Monstera' });
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
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

describe('start failures, each said in one line', { timeout: 60_000 }, () => {
  /** The one line a refused start writes on stderr, once it has exited 1 without listening. */
  async function refusal(env: NodeJS.ProcessEnv): Promise<string> {
    const run = runMain({ API_TOKENS: TOKEN, PORT: '0', ...env });
    expect(await startOutcome(run)).toBe(1);
    return run.stderr();
  }
  const refusedWith = (reason: string): string => `plant-store cannot start: ${reason}\n`;
  const pglite = (folder: string) => ({ DATABASE_URL: `pglite:${folder}` });
  const makeWritable =
    ": set DATABASE_URL=pglite:<dir> to a folder this process may make and write, empty or PGlite's own";

  it.each(['256.1.1.1', 'not-a-host.invalid'])(
    'when HOST is %s, which resolves to no address, then it says so naming HOST',
    async (host) => {
      expect(await refusal({ HOST: host, DATABASE_URL: 'memory:' })).toMatch(
        new RegExp(
          `^plant-store cannot start: HOST ${host} is no address and no name this machine resolves ` +
            '\\((ENOTFOUND|EAI_AGAIN)\\): set HOST to an address of this machine \\(127\\.0\\.0\\.1, 0\\.0\\.0\\.0 for all\\)\\n$',
        ),
      );
    },
  );

  it('when HOST is an address of no interface of this machine, then it says so naming HOST', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of a machine.
    expect(await refusal({ HOST: '192.0.2.1', DATABASE_URL: 'memory:' })).toBe(
      refusedWith('192.0.2.1 is not an address of this machine: check HOST'),
    );
  });

  it('when DATABASE_URL asks for TLS (sslmode=require) and the server has none, then it says so', async () => {
    // What a PostgreSQL server without TLS answers a client's request for it: one byte, N.
    const noTls = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('N'));
    });
    await new Promise<void>((ready) => noTls.listen(0, '127.0.0.1', ready));
    try {
      const { port } = noTls.address() as AddressInfo;
      const stderr = await refusal({
        DATABASE_URL: `postgres://plants@127.0.0.1:${port}/plants?sslmode=require`,
      });
      // pg warns on stderr about sslmode=require at every start, before this line: the line is the last.
      expect(stderr.split('\n').filter((line) => line.startsWith('plant-store'))).toHaveLength(1);
      expect(stderr.slice(stderr.indexOf('plant-store cannot start: '))).toBe(
        refusedWith(
          'The server does not support SSL connections: DATABASE_URL asks for TLS (sslmode, ssl): turn TLS on ' +
            'at the server, or set sslmode=disable where the network to it is private',
        ),
      );
    } finally {
      noTls.close();
    }
  });

  it('when the data folder is a file (pglite:/dev/null), then it says so naming it', async () => {
    expect(await refusal(pglite('/dev/null'))).toBe(
      refusedWith(`the data folder /dev/null cannot be used: /dev/null is not a folder${makeWritable}`),
    );
  });

  it("when a file is where the data folder's lock goes, then it says so naming that file", async () => {
    const folder = join(tempDir, 'lock-is-a-file');
    await mkdir(folder);
    await writeFile(join(folder, '.plant-store-lock'), '');
    expect(await refusal(pglite(folder))).toBe(
      refusedWith(
        `the data folder ${folder} cannot be used: ${folder}/.plant-store-lock is not a folder${makeWritable}`,
      ),
    );
  });

  // No process may make a folder in /sys/kernel, root included (EPERM; EROFS where /sys is mounted read-only).
  it('when the data folder is one no process may write in, then it says so naming it', async () => {
    expect(await refusal(pglite('/sys/kernel'))).toMatch(
      /^plant-store cannot start: the data folder \/sys\/kernel cannot be used: (mkdir \/sys\/kernel\/\.plant-store-lock is not permitted \((EPERM|EACCES)\)|\/sys\/kernel\/\.plant-store-lock is on a read-only file system): set DATABASE_URL=pglite:<dir> to a folder this process may make and write, empty or PGlite's own\n$/,
    );
  });

  // Node's own recursive mkdir spins there for ever: a parent that is there, a child never made.
  it('when the data folder is under /proc, where no folder can be made, then it says so naming it', async () => {
    expect(await refusal(pglite('/proc/plant-store-data'))).toBe(
      refusedWith(
        `the data folder /proc/plant-store-data cannot be used: mkdir /proc/plant-store-data failed (ENOENT)${makeWritable}`,
      ),
    );
  });

  // A folder made immutable after PGlite used it fails the same way: PGlite says only that it could not start.
  it('when the data folder holds what PGlite cannot start on, then it says so naming it', async () => {
    const folder = join(tempDir, 'not-pglites-own');
    await mkdir(folder);
    await writeFile(join(folder, 'PG_VERSION'), '99\n');
    expect(await refusal(pglite(folder))).toBe(
      refusedWith(
        `the data folder ${folder} cannot be used: PGlite could not start on it (PGlite failed to initialize properly)${makeWritable}`,
      ),
    );
  });

  it("when the data folder's path is too long for its lock, then it says so naming it", async () => {
    const folder = join(tempDir, 'x'.repeat(120));
    expect(await refusal(pglite(folder))).toBe(
      refusedWith(
        `the data folder's path is too long for its lock (a Unix socket path holds 107 bytes): ${folder}${makeWritable}`,
      ),
    );
  });

  // Read whole, /dev/zero filled the machine's memory before anything was said.
  it('when API_TOKENS_FILE is /dev/zero, then it is refused naming it', async () => {
    expect(await refusal({ DATABASE_URL: 'memory:', API_TOKENS_FILE: '/dev/zero' })).toBe(
      refusedWith('API_TOKENS_FILE /dev/zero is not a regular file'),
    );
  });

  it('when DATABASE_URL is pglite:memory://, which would keep nothing, then it is refused pointing to memory:', async () => {
    // Refused with the configuration's other problems, as every bad DATABASE_URL is.
    expect(await refusal({ DATABASE_URL: 'pglite:memory://plants' })).toBe(
      refusedWith(
        'DATABASE_URL pglite:memory:// is not a folder on disk (PGlite would keep the plants in memory and lose ' +
          'them at exit): pglite: takes a folder, as pglite:/srv/plants, pglite:./data or pglite:file:///srv/plants; ' +
          'for a throwaway run, DATABASE_URL=memory:',
      ),
    );
  });
});

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

/** Runs one statement on the test server as its administrator. */
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: server?.connectionString });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.skipIf(!server)('a PostgreSQL database that does not store UTF8', () => {
  // A database of this run's own, so that runs at once never meet; dropped afterwards.
  const latin1 = `plant_store_latin1_${randomBytes(6).toString('hex')}`;
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
    expect(fatalLines(run.stdout())).toEqual([]);
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
    expect(fatalLines(run.stdout())).toEqual([]);
  });
});

describe.skipIf(!server)('a PostgreSQL server that refuses the user', () => {
  it('when the user does not exist, then it says so in one line pointing to the user and password, and exits 1', async () => {
    const url = new URL(server?.connectionString ?? '');
    url.username = `plant_store_nobody_${randomBytes(6).toString('hex')}`;
    url.password = 'not-a-password';
    const run = runMain({ API_TOKENS: TOKEN, DATABASE_URL: url.toString(), PORT: '0' });
    expect(await run.exited).toBe(1);
    // Where the server trusts local users it says the role does not exist; else that the password failed.
    expect(run.stderr()).toMatch(
      new RegExp(
        `^plant-store cannot start: (role "${url.username}" does not exist|password authentication failed for user "${url.username}"): check DATABASE_URL's user and password\\n$`,
      ),
    );
  });
});

describe.skipIf(!server)("a PostgreSQL database that will not take the service's tables", () => {
  // Each test has a schema of its own on the test server, dropped afterwards, as are the roles made.
  const made: string[] = [];
  const name = (what: string) => {
    const named = `plant_store_${what}_${randomBytes(6).toString('hex')}`;
    made.push(named);
    return named;
  };
  afterAll(async () => {
    for (const named of made.reverse()) {
      await admin(`drop schema if exists ${named} cascade`);
      await admin(`drop role if exists ${named}`);
    }
  });
  /** The test server's URL with these `-c name=value` settings as its options (and another user, its password its name). */
  const databaseUrl = (settings: string, user?: string): string => {
    const url = new URL(server?.connectionString ?? '');
    url.searchParams.set('options', settings);
    if (user !== undefined) {
      url.username = user;
      url.password = user;
    }
    return url.toString();
  };
  /** The stderr of a start refused on DATABASE_URL, with nothing in the log about it. */
  async function refusedOn(databaseUrlValue: string): Promise<string> {
    const run = runMain({ API_TOKENS: TOKEN, DATABASE_URL: databaseUrlValue, PORT: '0' });
    expect(await startOutcome(run)).toBe(1);
    expect(fatalLines(run.stdout())).toEqual([]);
    return run.stderr();
  }

  it('when the search_path names no schema that exists, then it says so in one line naming the search_path, and exits 1', async () => {
    const missing = name('missing');
    expect(await refusedOn(databaseUrl(`-c search_path=${missing}`))).toBe(
      `plant-store cannot start: no schema of the search_path (${missing}) exists: create it, or set ` +
        "DATABASE_URL's search_path (options=-c search_path=<schema>) to a schema that exists\n",
    );
  });

  it('when its user may not create tables in the schema, then it says so in one line naming the schema', async () => {
    const schema = name('not_permitted');
    await admin(`create schema ${schema}`);
    await admin(`create role ${schema} login password '${schema}'`);
    await admin(`grant usage on schema ${schema} to ${schema}`);
    expect(await refusedOn(databaseUrl(`-c search_path=${schema}`, schema))).toBe(
      `plant-store cannot start: permission denied for schema ${schema}: grant DATABASE_URL's user CREATE on ` +
        'that schema, or set its search_path to a schema the user owns\n',
    );
  });

  it('when the server is read-only (a standby, default_transaction_read_only), then it says so in one line', async () => {
    const schema = name('read_only');
    await admin(`create schema ${schema}`);
    expect(await refusedOn(databaseUrl(`-c search_path=${schema} -c default_transaction_read_only=on`))).toBe(
      'plant-store cannot start: cannot execute CREATE TABLE in a read-only transaction: DATABASE_URL must ' +
        'name the primary server, not a standby, and a user or database not set to default_transaction_read_only\n',
    );
  });

  it('when a newer version of the service migrated the schema, then it says so in one line naming the migration', async () => {
    const schema = name('newer');
    await admin(`create schema ${schema}`);
    const first = runMain({
      API_TOKENS: TOKEN,
      DATABASE_URL: databaseUrl(`-c search_path=${schema}`),
      PORT: '0',
    });
    await listeningUrl(first);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    await admin(
      `insert into ${schema}.kysely_migration (name, timestamp) select '9999_from_a_newer_version', max(timestamp) from ${schema}.kysely_migration`,
    );
    expect(await refusedOn(databaseUrl(`-c search_path=${schema}`))).toBe(
      'plant-store cannot start: a newer version of the service migrated this schema: its migration ' +
        "9999_from_a_newer_version is not one of this version's: run that version, or give this one a " +
        'database (or schema) of its own\n',
    );
  });

  it.each([
    ['an unknown setting', '-c no_such_setting=1', 'unrecognized configuration parameter "no_such_setting"'],
    [
      'a value the setting does not take',
      '-c statement_timeout=soon',
      'invalid value for parameter "statement_timeout": "soon"',
    ],
  ])(
    "when its options give the server %s, then it says so in one line in the server's words",
    async (_, settings, words) => {
      expect(await refusedOn(databaseUrl(settings))).toBe(
        `plant-store cannot start: ${words}: the server refuses a setting of DATABASE_URL's options ` +
          '(-c name=value): correct or remove it\n',
      );
    },
  );
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
