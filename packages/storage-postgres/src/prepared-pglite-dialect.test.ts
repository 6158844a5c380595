import { PGlite, types } from '@electric-sql/pglite';
import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS } from '@plant-store/test-support';
import { CompiledQuery, Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';
import { INSERT_PLANT, PLANT_STATEMENT_NAMES } from './plant-statements.ts';
import { PreparedPgliteDialect } from './prepared-pglite-dialect.ts';

const INSERT = 'insert into t (id, name) values ($1, $2) returning id, name';
const SELECT = 'select id, name from t where id = any($1::int8[]) order by id';

interface Prepared {
  name: string;
  from_sql: boolean;
  executions: number;
}

async function preparedStatements(pglite: PGlite): Promise<Prepared[]> {
  const { rows } = await pglite.query<Prepared>(
    'select name, from_sql, generic_plans + custom_plans as executions from pg_prepared_statements order by name',
  );
  return rows;
}

describe('PreparedPgliteDialect', { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
  let pglite: PGlite;
  let db: Kysely<unknown>;
  const run = async (text: string, parameters: unknown[]) =>
    (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows;

  beforeEach(async () => {
    pglite = new PGlite({ parsers: { [types.INT8]: (value: string) => BigInt(value) } });
    await pglite.exec('create table t (id int8 primary key, name text not null check (length(name) < 10))');
    const statementNames = new Map([
      [INSERT, 'test_insert'],
      [SELECT, 'test_select'],
    ]);
    db = new Kysely({ dialect: new PreparedPgliteDialect({ pglite, statementNames }) });
  });

  afterEach(async () => {
    await db.destroy();
  });

  it('when a named text runs again and again, then it is parsed once and only bound and executed after', async () => {
    for (let id = 1n; id <= 3n; id += 1n) {
      await expect(run(INSERT, [id, 'Fern'])).resolves.toStrictEqual([{ id, name: 'Fern' }]);
    }
    // Arrays and int8 beyond 2^53 are serialized and parsed as PGlite's query() does them.
    await run(INSERT, [2n ** 62n, 'Ivy']);
    await expect(run(SELECT, [[1n, 2n ** 62n]])).resolves.toStrictEqual([
      { id: 1n, name: 'Fern' },
      { id: 2n ** 62n, name: 'Ivy' },
    ]);
    await expect(preparedStatements(pglite)).resolves.toStrictEqual([
      { name: 'test_insert', from_sql: false, executions: 4n },
      { name: 'test_select', from_sql: false, executions: 1n },
    ]);
    // A text not named goes through PGlite's query(), as in kysely's own dialect.
    await expect(run('select count(*)::int8 as n from t', [])).resolves.toStrictEqual([{ n: 4n }]);
    await expect(preparedStatements(pglite)).resolves.toHaveLength(2);
  });

  it('when a named statement runs in a transaction of kysely, then it is part of it: a rollback takes it too', async () => {
    const failure = new Error('rolled back');
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(INSERT, [1n, 'Fern']));
        expect(pglite.isInTransaction()).toBe(true);
        throw failure;
      }),
    ).rejects.toBe(failure);
    await db.transaction().execute(async (trx) => {
      await trx.executeQuery(CompiledQuery.raw(INSERT, [2n, 'Moss']));
    });
    expect(pglite.isInTransaction()).toBe(false);
    await expect(run(SELECT, [[1n, 2n]])).resolves.toStrictEqual([{ id: 2n, name: 'Moss' }]);
  });

  it('when another user of the instance holds a transaction open, then a named statement waits for its end', async () => {
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const { promise: begun, resolve: began } = Promise.withResolvers<void>();
    const transaction = pglite.transaction(async (tx) => {
      await tx.query("insert into t (id, name) values (1, 'Gone')");
      began();
      await released;
      await tx.rollback();
    });
    await begun;
    const inserted = run(INSERT, [2n, 'Kept']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await transaction;
    await expect(inserted).resolves.toStrictEqual([{ id: 2n, name: 'Kept' }]);
    await expect(run(SELECT, [[1n, 2n]])).resolves.toStrictEqual([{ id: 2n, name: 'Kept' }]);
  });

  it('when a named statement fails, then it rejects with the database error, no transaction is left open and the next one runs', async () => {
    await expect(run(INSERT, [1n, 'a name too long'])).rejects.toMatchObject({ code: '23514' });
    expect(pglite.isInTransaction()).toBe(false);
    await run(INSERT, [1n, 'Fern']);
    await expect(run(INSERT, [1n, 'Fern'])).rejects.toMatchObject({ code: '23505' });
    await expect(run(INSERT, [2n, 'Moss'])).resolves.toStrictEqual([{ id: 2n, name: 'Moss' }]);
  });

  it('when a named text cannot be parsed, then it rejects with the error, keeps no name and parses it on the next call', async () => {
    await pglite.exec('alter table t rename to u');
    await expect(run(INSERT, [1n, 'Fern'])).rejects.toMatchObject({ code: '42P01' });
    await expect(preparedStatements(pglite)).resolves.toStrictEqual([]);
    await pglite.exec('alter table u rename to t');
    await expect(run(INSERT, [1n, 'Fern'])).resolves.toStrictEqual([{ id: 1n, name: 'Fern' }]);
  });

  it("when PGlite is closed under it, then a named statement rejects with PGlite's own error", async () => {
    await run(INSERT, [1n, 'Fern']);
    await pglite.close();
    await expect(run(INSERT, [2n, 'Moss'])).rejects.toThrow('PGlite is closed');
  });
});

describe('openPglitePlantStorage, its statements', { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
  it('when plants are created, then the insert is one named statement of the storage, executed once a create', async () => {
    const storage = await openPglitePlantStorage({ groupCommit: false });
    try {
      for (let id = 1n; id <= 3n; id += 1n) {
        await expect(storage.plants.insertIfAbsent({ id, name: 'Fern' })).resolves.toStrictEqual({
          inserted: true,
        });
      }
      const name = PLANT_STATEMENT_NAMES.get(INSERT_PLANT.bind({ id: '1', name: '', tag: null }).sql);
      expect(name).toBeDefined();
      await expect(preparedStatements(storage.pglite)).resolves.toContainEqual({
        name,
        from_sql: false,
        executions: 3n,
      });
    } finally {
      await storage.close();
    }
  });
});
