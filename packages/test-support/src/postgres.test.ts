import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSchema, provideTestPostgres } from './postgres.ts';

// Warns loudly on stderr when no server can be had, and the leg below does not run.
const server = await provideTestPostgres();
const url = server?.connectionString ?? '';

describe.skipIf(!server)('createTestSchema', () => {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(async () => {
    await admin.end();
    await server?.cleanup();
  });
  const schemasLike = async (prefix: string): Promise<string[]> => {
    const { rows } = await admin.query<{ name: string }>(
      'select nspname as name from pg_namespace where starts_with(nspname, $1) order by 1',
      [prefix],
    );
    return rows.map((row) => row.name);
  };

  it('when cleaned up, then its schema and those named after it (the job queue beside it) are dropped, and no other', async () => {
    const test = await createTestSchema(url, 'cleanup test');
    const other = await createTestSchema(url, 'bystander');
    const schema = /\(schema (\S+)\)$/.exec(test.source)?.[1] ?? '';
    const bystander = /\(schema (\S+)\)$/.exec(other.source)?.[1] ?? '';
    await admin.query(`create schema "${schema}_pgboss"`);
    expect(await schemasLike(schema)).toEqual([schema, `${schema}_pgboss`]);

    await test.cleanup();
    expect(await schemasLike(schema)).toEqual([]);
    expect(await schemasLike(bystander)).toEqual([bystander]);
    await other.cleanup();
    expect(await schemasLike(bystander)).toEqual([]);
  });
});
