import { randomBytes } from 'node:crypto';
import { provideTestPostgres } from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseEncodingError } from './database-encoding.ts';
import { openPostgresPlantStorage } from './open-postgres-plant-storage.ts';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

/** The server's URL for another database of it, without the test schema's options. */
function databaseUrl(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  url.searchParams.delete('options');
  return url.toString();
}

async function onServer(connectionString: string, statement: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.skipIf(!server)('a PostgreSQL database that does not store UTF8', () => {
  const connectionString = server?.connectionString ?? '';
  // A database of this run's own, so that runs at once never meet.
  const latin1 = `plant_store_latin1_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    await onServer(
      connectionString,
      `create database ${latin1} encoding 'LATIN1' template template0 lc_collate 'C' lc_ctype 'C'`,
    );
  });
  afterAll(async () => {
    await onServer(connectionString, `drop database if exists ${latin1} with (force)`);
  });

  it('when it is opened, then it is refused with DatabaseEncodingError naming the database and its encoding, and nothing is migrated', async () => {
    const url = databaseUrl(connectionString, latin1);
    const error = await openPostgresPlantStorage({ connectionString: url }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatabaseEncodingError);
    expect(error).toMatchObject({ database: latin1, encoding: 'LATIN1' });
    expect((error as Error).message).toBe(
      `the database "${latin1}" is encoded LATIN1, not UTF8: plants may hold any Unicode text; ` +
        `use a database created with ENCODING 'UTF8' (createdb -E UTF8 -T template0)`,
    );
    const tables = await onServer(url, "select tablename from pg_tables where schemaname = 'public'");
    expect(tables.rows).toEqual([]);
  });
});
