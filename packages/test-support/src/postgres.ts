/**
 * A PostgreSQL server for tests: the one named by TEST_DATABASE_URL, else a throwaway container,
 * else none (with a loud warning).
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import pg from 'pg';
import type { GenericContainer } from 'testcontainers';
import { warnDidNotRun } from './did-not-run.ts';
import { isQuickRun } from './quick-run.ts';
import { TEST_RUN } from './test-run.ts';

export interface TestPostgres {
  /** Where the tests connect; for TEST_DATABASE_URL, with `search_path` set to a fresh schema. */
  readonly connectionString: string;
  /** Where the server came from, for test output. */
  readonly source: string;
  /** Drops what the tests created (the schema, or the whole container). */
  cleanup(): Promise<void>;
}

const NO_CONTAINER_RUNTIME = 'Could not find a working container runtime strategy';

/** The connection string with libpq `options` that make `schema` the only schema on the search path. */
export function withSearchPath(connectionString: string, schema: string): string {
  const url = new URL(connectionString);
  const others = url.searchParams.get('options');
  const searchPath = `-c search_path=${schema}`;
  url.searchParams.set('options', others ? `${others} ${searchPath}` : searchPath);
  return url.toString();
}

/**
 * Creates a fresh schema `test_<random hex>` on the server and returns a connection string
 * that uses it, so test runs sharing one database never see each other's tables.
 */
export async function createTestSchema(connectionString: string, source: string): Promise<TestPostgres> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => {});
  try {
    await pool.query(`create schema ${schema}`);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    connectionString: withSearchPath(connectionString, schema),
    source: `${source} (schema ${schema})`,
    async cleanup() {
      try {
        // With the schemas named after it: the webhook queue's beside the store's (jobQueueSchema in
        // packages/webhooks names it), whatever its name, without a copy of that rule here.
        const { rows } = await pool.query<{ name: string }>(
          'select nspname as name from pg_namespace where nspname = $1 or starts_with(nspname, $2)',
          [schema, `${schema}_`],
        );
        for (const { name } of rows) await pool.query(`drop schema if exists "${name}" cascade`);
      } finally {
        await pool.end();
      }
    },
  };
}

/** The image the container leg runs; the official one unless TEST_POSTGRES_IMAGE names another. */
export const DEFAULT_TEST_POSTGRES_IMAGE = 'postgres:17-alpine';
/** Every container started here carries this label, valued with TEST_RUN: CI checks none is left behind. */
export const TEST_CONTAINER_LABEL = 'plant-store.test';
/**
 * How long a container may take to answer before testcontainers gives up on it, and then stops and
 * removes it. A test that starts one within its own bound must allow longer, or a slow start outlives
 * the test and its container is never removed.
 */
export const CONTAINER_STARTUP_TIMEOUT_MS = 90_000;

/**
 * @testcontainers/postgresql's readiness probe (pg_isready every 250 ms, which gives up by itself after
 * 3 s) with Docker's default probe timeout, not its 1 s: Docker before 23 counts setting up the probe's
 * exec against that timeout (moby/moby#43480), which a busy engine alone can spend, PostgreSQL up or not.
 */
const READINESS_PROBE: Parameters<GenericContainer['withHealthCheck']>[0] = {
  test: ['CMD', 'pg_isready', '--host', 'localhost', '--username', 'test', '--dbname', 'test'],
  interval: 250,
  timeout: 30_000,
  retries: 1000,
};
const LOG_TAIL_LINES = 30;

/**
 * The bound of a test that starts an embedded PostgreSQL (PGlite) of its own: its start, initdb in
 * WebAssembly, can take most of vitest's default 30 s on a busy machine (figures: RELIABILITY.md, "The suite under load").
 * A bound for a hang, not a check of speed.
 */
export const EMBEDDED_POSTGRES_TEST_TIMEOUT_MS = 120_000;

/** The message for an image that is not on the engine: it is never pulled here, so say how to make it. */
export function missingImageMessage(image: string): string {
  return (
    `the PostgreSQL image ${image} (TEST_POSTGRES_IMAGE) is not on this Docker engine, and tests never pull one. ` +
    `Pull it where a registry answers (docker pull ${image}), or make the stand-in with \`pnpm docker:prepare\` ` +
    'and run with TEST_POSTGRES_IMAGE=localhost/plant-store-ci/postgres:15'
  );
}

async function startContainer(): Promise<TestPostgres | undefined> {
  // Ryuk, testcontainers' reaper, is an image of its own that cannot be pulled everywhere: it is
  // off, and cleanup() stops and removes the container (each test file calls it in afterAll).
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Loaded only when needed: testcontainers is slow to import and useless with TEST_DATABASE_URL.
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { PullPolicy, getContainerRuntimeClient, ImageName } = await import('testcontainers');
  const image = process.env.TEST_POSTGRES_IMAGE || DEFAULT_TEST_POSTGRES_IMAGE;
  let client: Awaited<ReturnType<typeof getContainerRuntimeClient>>;
  try {
    client = await getContainerRuntimeClient();
  } catch (error) {
    if (error instanceof Error && error.message.includes(NO_CONTAINER_RUNTIME)) {
      warnDidNotRun(
        'PostgreSQL server tests',
        `TEST_DATABASE_URL is not set and testcontainers found no container runtime (${error.message})`,
        'set TEST_DATABASE_URL, e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm test, or start Docker (pnpm docker:prepare)',
      );
      return undefined;
    }
    throw error;
  }
  // An engine answers: from here on, anything missing is a failure, never a skip.
  if (!(await client.image.exists(ImageName.fromString(image)))) throw new Error(missingImageMessage(image));
  // The container's last log lines, for the error of a start that fails: was PostgreSQL up or not?
  const logTail: string[] = [];
  let log: Readable | undefined;
  const container = await new PostgreSqlContainer(image)
    .withPullPolicy(PullPolicy.neverPull())
    .withLabels({ [TEST_CONTAINER_LABEL]: TEST_RUN })
    .withHealthCheck(READINESS_PROBE)
    .withStartupTimeout(CONTAINER_STARTUP_TIMEOUT_MS)
    .withLogConsumer((stream) => {
      log = stream;
      stream.on('data', (line: string | Buffer) => {
        logTail.push(String(line));
        if (logTail.length > LOG_TAIL_LINES) logTail.shift();
      });
    })
    .start()
    .catch((error: Error) => {
      throw new Error(`${error.message}; the container's log ended with:\n${logTail.join('')}`, {
        cause: error,
      });
    })
    .finally(() => log?.destroy());
  return {
    connectionString: container.getConnectionUri(),
    source: `testcontainers ${image}`,
    async cleanup() {
      await container.stop({ remove: true, removeVolumes: true });
    },
  };
}

/**
 * A PostgreSQL server for tests, or undefined when none can be had (tests then skip their
 * server leg, after a loud warning on stderr). Order: TEST_DATABASE_URL, then a container (never in
 * `pnpm test:quick`).
 */
export async function provideTestPostgres(): Promise<TestPostgres | undefined> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return createTestSchema(url, 'TEST_DATABASE_URL');
  if (isQuickRun()) {
    warnDidNotRun(
      'PostgreSQL server tests',
      'TEST_DATABASE_URL is not set, and pnpm test:quick starts no container',
      'set TEST_DATABASE_URL, e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm test:quick, or run pnpm test',
    );
    return undefined;
  }
  return startContainer();
}
