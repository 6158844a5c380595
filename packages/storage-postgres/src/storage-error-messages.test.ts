import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS, provideTestPostgres } from '@plant-store/test-support';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectionRefusal,
  isUnavailableError,
  NO_TLS_MESSAGE,
  UNAVAILABLE_MESSAGES,
} from './storage-errors.ts';

// The driver versions the messages were provoked from. An upgrade fails the first test: provoke the
// messages again below against the new version, fix the list if one changed, then move the pin.
const WRITTEN_AGAINST: Record<(typeof UNAVAILABLE_MESSAGES)[number]['driver'], string> = {
  pg: '8.23.1',
  'pg-pool': '3.14.0',
  kysely: '0.29.9',
  '@electric-sql/pglite': '0.5.16',
};

const require = createRequire(import.meta.url);

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

/** The installed version of a package, read from its package.json (next to its entry point). */
function installedVersion(name: string, from: NodeJS.Require = require): string {
  let dir = dirname(from.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (manifest.name === name) return manifest.version;
    } catch {}
    if (dirname(dir) === dir) throw new Error(`no package.json of ${name} above its entry point`);
    dir = dirname(dir);
  }
}

/** The error a call ends with (fails the test if it ends without one). */
async function failureOf(call: () => Promise<unknown>): Promise<Error> {
  try {
    await call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

/** Which entry of the list an error's message matched, so each test shows the entry it keeps alive. */
function matchedEntry(error: Error): string | undefined {
  return UNAVAILABLE_MESSAGES.find((known) => error.message.startsWith(known.message))?.message;
}

describe('outage messages of drivers that give no code', () => {
  it('when a driver is upgraded, then this fails until its messages are provoked again from the new version', () => {
    const pgRequire = createRequire(require.resolve('pg'));
    expect({
      pg: installedVersion('pg'),
      'pg-pool': installedVersion('pg-pool', pgRequire),
      kysely: installedVersion('kysely'),
      '@electric-sql/pglite': installedVersion('@electric-sql/pglite'),
    }).toEqual(WRITTEN_AGAINST);
  });

  describe('without a database', () => {
    // A server that closes every connection at once, and one that accepts and never answers.
    const closing = net.createServer((socket) => socket.destroy());
    const silent = net.createServer(() => {});
    beforeAll(async () => {
      await Promise.all(
        [closing, silent].map((server) => new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))),
      );
    });
    afterAll(() => {
      closing.close();
      silent.close();
      for (const socket of silentSockets) socket.destroy();
    });
    const silentSockets: net.Socket[] = [];
    silent.on('connection', (socket) => silentSockets.push(socket));
    const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;

    it('pg: a server that closes the connection is "Connection terminated unexpectedly"', async () => {
      const client = new pg.Client({ host: '127.0.0.1', port: portOf(closing), user: 'plants' });
      const error = await failureOf(() => client.connect());
      expect(matchedEntry(error)).toBe('Connection terminated');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg: a server that never answers the start is "timeout expired"', async () => {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: portOf(silent),
        user: 'plants',
        connectionTimeoutMillis: 50,
      });
      const error = await failureOf(() => client.connect());
      expect(matchedEntry(error)).toBe('timeout expired');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg-pool: a pool that cannot connect in time is "Connection terminated due to connection timeout"', async () => {
      const pool = new pg.Pool({
        host: '127.0.0.1',
        port: portOf(silent),
        user: 'plants',
        connectionTimeoutMillis: 50,
      });
      const error = await failureOf(() => pool.connect());
      await pool.end();
      expect(matchedEntry(error)).toBe('Connection terminated');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg-pool: a pool used after end() is "Cannot use a pool after calling end on the pool"', async () => {
      const pool = new pg.Pool({ host: '127.0.0.1', port: portOf(silent), user: 'plants' });
      await pool.end();
      const error = await failureOf(() => pool.query('select 1'));
      expect(matchedEntry(error)).toBe('Cannot use a pool after calling end on the pool');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('PGlite: a database used after close() is "PGlite is closed"', {
      timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
    }, async () => {
      const db = new PGlite();
      await db.waitReady;
      await db.close();
      const error = await failureOf(() => db.query('select 1'));
      expect(matchedEntry(error)).toBe('PGlite is closed');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('PGlite: "PGlite is closing" is still what the installed version throws while it closes', () => {
      // No public way to be inside close() when a query starts (one started then fails elsewhere in
      // PGlite's internals): the pinned version's own text holds the message.
      const entry = require.resolve('@electric-sql/pglite');
      const sources = [entry, ...chunksBeside(entry)].map((file) => readFileSync(file, 'utf8'));
      expect(
        sources.some((text) => text.includes("'PGlite is closing'") || text.includes('"PGlite is closing"')),
      ).toBe(true);
    });
  });

  describe.skipIf(!server)('with a PostgreSQL server', () => {
    const connectionString = () => server?.connectionString ?? '';

    it('pg: a statement past query_timeout is "Query read timeout"', async () => {
      const client = new pg.Client({ connectionString: connectionString(), query_timeout: 50 });
      await client.connect();
      const error = await failureOf(() => client.query('select pg_sleep(2)'));
      await client.end();
      expect(matchedEntry(error)).toBe('Query read timeout');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg-pool: waiting past connectionTimeoutMillis for a busy pool is "timeout exceeded when trying to connect"', async () => {
      // The one connection is made under no bound (on a busy machine it can take longer than 50 ms);
      // pg-pool reads the bound again each time a caller starts waiting, so it applies from here on.
      const pool = new pg.Pool({ connectionString: connectionString(), max: 1 });
      const held = await pool.connect();
      pool.options.connectionTimeoutMillis = 50;
      const error = await failureOf(() => pool.connect());
      held.release();
      await pool.end();
      expect(matchedEntry(error)).toBe('timeout exceeded when trying to connect');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg: a client whose session was ended is "Client has encountered a connection error and is not queryable"', async () => {
      const client = new pg.Client({ connectionString: connectionString() });
      client.on('error', () => {}); // the session's end, reported here first
      const ended = new Promise((done) => client.once('end', done));
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      const other = new pg.Client({ connectionString: connectionString() });
      await other.connect();
      await other.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      await other.end();
      await ended; // the socket closed: from here on the client refuses queries
      const error = await failureOf(() => client.query('select 1'));
      expect(matchedEntry(error)).toBe('Client has encountered a connection error and is not queryable');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('pg: a client used after end() is "Client was closed and is not queryable"', async () => {
      const client = new pg.Client({ connectionString: connectionString() });
      await client.connect();
      await client.end();
      const error = await failureOf(() => client.query('select 1'));
      expect(matchedEntry(error)).toBe('Client was closed and is not queryable');
      expect(isUnavailableError(error)).toBe(true);
    });

    it('kysely: a database used after destroy() is "driver has already been destroyed"', async () => {
      const db = new Kysely<object>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: connectionString() }) }),
      });
      await db.executeQuery(CompiledQuery.raw('select 1'));
      await db.destroy();
      const error = await failureOf(() => db.executeQuery(CompiledQuery.raw('select 1')));
      expect(matchedEntry(error)).toBe('driver has already been destroyed');
      expect(isUnavailableError(error)).toBe(true);
    });
  });
});

/** PGlite's bundle splits its code into chunk files beside its entry point. */
function chunksBeside(entry: string): string[] {
  const dir = dirname(entry);
  return readdirSync(dir)
    .filter((name) => name.startsWith('chunk-') && name.endsWith('.js'))
    .map((name) => join(dir, name));
}

describe('refusals of drivers that give no code', () => {
  // What a PostgreSQL server without TLS answers a client's request for it: one byte, N.
  const noTls = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end('N'));
  });
  beforeAll(() => new Promise<void>((ready) => noTls.listen(0, '127.0.0.1', ready)));
  afterAll(() => noTls.close());

  it(`pg: a server without TLS, asked for it, is "${NO_TLS_MESSAGE}"`, async () => {
    const { port } = noTls.address() as net.AddressInfo;
    const client = new pg.Client({
      connectionString: `postgres://plants@127.0.0.1:${port}/plants?sslmode=verify-full`,
    });
    const error = await failureOf(() => client.connect());
    expect(error.message).toBe(NO_TLS_MESSAGE);
    expect(connectionRefusal(error)).toBe('no TLS');
    expect(isUnavailableError(error)).toBe(false);
  });
});
