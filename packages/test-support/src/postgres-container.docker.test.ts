// provideTestPostgres's container leg, for real, where a Docker engine answers: it starts the image
// TEST_POSTGRES_IMAGE names (never pulling), leaves nothing behind, and fails at once, naming the
// image, when that image is missing.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { warnDidNotRun } from './did-not-run.ts';
import {
  CONTAINER_STARTUP_TIMEOUT_MS,
  DEFAULT_TEST_POSTGRES_IMAGE,
  provideTestPostgres,
  TEST_CONTAINER_LABEL,
} from './postgres.ts';

const { getContainerRuntimeClient, ImageName } = await import('testcontainers');
const engine = await getContainerRuntimeClient().then(
  () => true,
  () => false,
);
if (!engine) {
  warnDidNotRun(
    'The testcontainers tests of provideTestPostgres',
    'no container runtime answers',
    'start a Docker engine (pnpm docker:prepare)',
  );
}

/**
 * The labelled containers that publish `port` on the host: the one a connection string names. Counting
 * every labelled container would see other runs' on a shared engine, started or stopped meanwhile.
 */
async function labelledContainersOn(port: number): Promise<string[]> {
  const client = await getContainerRuntimeClient();
  const all = await client.container.list();
  return all
    .filter(
      ({ Labels, Ports }) =>
        Labels[TEST_CONTAINER_LABEL] !== undefined && Ports.some(({ PublicPort }) => PublicPort === port),
    )
    .map((container) => container.Id);
}

describe.skipIf(!engine)('provideTestPostgres without TEST_DATABASE_URL, through testcontainers', () => {
  const saved = { url: process.env.TEST_DATABASE_URL, image: process.env.TEST_POSTGRES_IMAGE };
  beforeEach(() => {
    delete process.env.TEST_DATABASE_URL;
  });
  afterEach(() => {
    if (saved.url === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved.url;
    if (saved.image === undefined) delete process.env.TEST_POSTGRES_IMAGE;
    else process.env.TEST_POSTGRES_IMAGE = saved.image;
  });

  // Bounded above the start's own timeout: a slow engine fails the start, which removes its container.
  it('starts PostgreSQL from TEST_POSTGRES_IMAGE, and cleanup() leaves no container behind', {
    timeout: CONTAINER_STARTUP_TIMEOUT_MS + 30_000,
  }, async () => {
    const server = await provideTestPostgres();
    expect(server?.source).toBe(`testcontainers ${saved.image || DEFAULT_TEST_POSTGRES_IMAGE}`);
    const port = Number(new URL(server?.connectionString ?? 'postgres://absent').port);
    try {
      const client = new pg.Client({ connectionString: server?.connectionString });
      await client.connect();
      try {
        const { rows } = await client.query<{ answer: number }>('select 41 + 1 as answer');
        expect(rows).toEqual([{ answer: 42 }]);
      } finally {
        await client.end();
      }
      const ids = await labelledContainersOn(port);
      expect(ids).toHaveLength(1);
      // Its readiness probe allows Docker's default 30 s, not the library's 1 s (postgres.ts says why).
      const runtime = await getContainerRuntimeClient();
      const { Config } = await runtime.container.inspect(runtime.container.getById(ids[0] ?? ''));
      expect(Config.Healthcheck?.Timeout).toBe(30_000_000_000);
    } finally {
      await server?.cleanup();
    }
    expect(await labelledContainersOn(port)).toEqual([]);
  });

  it('fails at once, naming the image and how to make it, when the image is missing (never pulls)', async () => {
    const image = 'localhost/plant-store-ci/absent-postgres:0';
    process.env.TEST_POSTGRES_IMAGE = image;
    await expect(provideTestPostgres()).rejects.toThrow(
      new RegExp(
        `${image.replaceAll('.', '\\.')} \\(TEST_POSTGRES_IMAGE\\) is not on this Docker engine.*pnpm docker:prepare`,
      ),
    );
    // Nothing was pulled: the image is still absent.
    const client = await getContainerRuntimeClient();
    expect(await client.image.exists(ImageName.fromString(image))).toBe(false);
  });
});
