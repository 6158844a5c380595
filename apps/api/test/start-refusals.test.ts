import { randomBytes } from 'node:crypto';
import { provideTestPostgres } from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftoverRuns, runMain } from './support/run-main.ts';

const TOKEN = 'start-refusal-token';

afterEach(killLeftoverRuns);

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
