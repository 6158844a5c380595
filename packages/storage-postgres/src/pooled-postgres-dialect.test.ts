import { provideTestPostgres } from '@plant-store/test-support';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PooledPostgresDialect, type PooledPostgresDriver } from './pooled-postgres-dialect.ts';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

const NAMED = 'select $1::int8 + 1 as next';
const PREPARED = 'select name, statement from pg_prepared_statements order by name';

interface Prepared {
  readonly name: string;
  readonly statement: string;
}

describe.skipIf(!server)('PooledPostgresDialect', () => {
  let pool: pg.Pool | undefined;
  let driver: PooledPostgresDriver | undefined;
  afterEach(async () => {
    await driver?.destroy();
    pool = undefined;
    driver = undefined;
  });

  /** The driver on a pool of one connection, so that every checkout is the same session. */
  async function onePool(statementNames?: ReadonlyMap<string, string>): Promise<PooledPostgresDriver> {
    pool = new pg.Pool({ connectionString: server?.connectionString, max: 1 });
    driver = new PooledPostgresDialect({
      pool,
      ...(statementNames ? { statementNames } : {}),
    }).createDriver();
    await driver.init();
    return driver;
  }

  async function run<T>(
    wrapped: PooledPostgresDriver,
    text: string,
    parameters: unknown[] = [],
  ): Promise<T[]> {
    const connection = await wrapped.acquireConnection();
    try {
      return (await connection.executeQuery<T>(CompiledQuery.raw(text, parameters))).rows;
    } finally {
      await wrapped.releaseConnection(connection);
    }
  }

  it('when a text has a name, then it is prepared once on the connection under that name and answers as before', async () => {
    const wrapped = await onePool(new Map([[NAMED, 'plant_store_test_next']]));
    expect(await run(wrapped, NAMED, ['41'])).toEqual([{ next: '42' }]);
    expect(await run(wrapped, NAMED, ['9007199254740993'])).toEqual([{ next: '9007199254740994' }]);
    expect(await run<Prepared>(wrapped, PREPARED)).toEqual([
      { name: 'plant_store_test_next', statement: NAMED },
    ]);
  });

  it('when a text has no name, then nothing is prepared on the connection', async () => {
    const wrapped = await onePool();
    expect(await run(wrapped, NAMED, ['41'])).toEqual([{ next: '42' }]);
    expect(await run<Prepared>(wrapped, PREPARED)).toEqual([]);
  });

  it('when a connection is checked out again, then it is the same object, and a failed statement that was not an outage does not discard it', async () => {
    const wrapped = await onePool(new Map([[NAMED, 'plant_store_test_next']]));
    const first = await wrapped.acquireConnection();
    await wrapped.releaseConnection(first);
    await expect(run(wrapped, 'select 1/0')).rejects.toThrow(/division by zero/);
    const second = await wrapped.acquireConnection();
    await wrapped.releaseConnection(second);
    expect(second).toBe(first);
    expect(pool?.totalCount).toBe(1);
  });

  it('when a statement fails because the session was ended, then that connection is discarded and the next checkout is a new one', async () => {
    const wrapped = await onePool(new Map([[NAMED, 'plant_store_test_next']]));
    await run(wrapped, NAMED, ['1']);
    const first = await wrapped.acquireConnection();
    await wrapped.releaseConnection(first);
    await expect(run(wrapped, 'select pg_terminate_backend(pg_backend_pid())')).rejects.toThrow();
    const second = await wrapped.acquireConnection();
    await wrapped.releaseConnection(second);
    expect(second).not.toBe(first);
    // The new session prepares the statement again, on its first use there.
    expect(await run(wrapped, NAMED, ['1'])).toEqual([{ next: '2' }]);
    expect(await run<Prepared>(wrapped, PREPARED)).toEqual([
      { name: 'plant_store_test_next', statement: NAMED },
    ]);
  });
  it('when a statement fails because the session is read-only (a demoted leader), then that connection is discarded and the next one can write', async () => {
    const wrapped = await onePool();
    const first = await wrapped.acquireConnection();
    try {
      await first.executeQuery(CompiledQuery.raw('set default_transaction_read_only = on'));
    } finally {
      await wrapped.releaseConnection(first);
    }
    await expect(
      run(wrapped, 'create temporary table plant_store_test_writes (x int)'),
    ).rejects.toMatchObject({
      code: '25006',
    });
    const second = await wrapped.acquireConnection();
    await wrapped.releaseConnection(second);
    expect(second).not.toBe(first);
    expect(await run(wrapped, 'show default_transaction_read_only')).toEqual([
      { default_transaction_read_only: 'off' },
    ]);
    expect(await run(wrapped, 'create temporary table plant_store_test_writes (x int)')).toEqual([]);
  });
});
