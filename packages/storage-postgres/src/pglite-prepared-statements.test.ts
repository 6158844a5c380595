import { PGlite, types } from '@electric-sql/pglite';
import { randomPlantId } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';
import { withPreparedStatements } from './pglite-prepared-statements.ts';
import { PLANT_STATEMENT_NAMES } from './postgres-plant-repository.ts';

const INSERT = `insert into things (id, name) values ($1::int8, $2::text)
  on conflict (id) do nothing returning id, name`;
const INSERT_MANY = `insert into things (id, name)
  select * from unnest($1::int8[], $2::text[]) on conflict (id) do nothing returning id, name`;
const STATEMENTS = new Map([
  [INSERT, 'test_insert'],
  [INSERT_MANY, 'test_insert_many'],
]);

async function openPglite(): Promise<PGlite> {
  const pglite = new PGlite({ parsers: { [types.INT8]: (value: string) => BigInt(value) } });
  await pglite.exec('create table things (id bigint primary key, name text not null)');
  return pglite;
}

async function preparedNames(pglite: PGlite): Promise<string[]> {
  const { rows } = await pglite.query<{ name: string }>(
    'select name from pg_prepared_statements order by name',
  );
  return rows.map((row) => row.name);
}

describe('withPreparedStatements', () => {
  let pglite: PGlite;
  let nextId = 1n;
  const id = (): bigint => nextId++;
  beforeAll(async () => {
    pglite = await openPglite();
  });
  afterAll(() => pglite.close());

  it('when a text of the map is run, then it runs as its named statement and answers as query() does', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    const [first, second] = [id(), id()];
    const prepared = await db.query(INSERT, [first.toString(), 'Fern'], { rowMode: 'object' });
    const plain = await pglite.query(INSERT, [second.toString(), 'Fern'], { rowMode: 'object' });
    expect(prepared).toStrictEqual({ ...plain, rows: [{ id: first, name: 'Fern' }] });
    expect(await preparedNames(pglite)).toContain('test_insert');
    // A conflict: no row, as with query().
    const again = await db.query(INSERT, [first.toString(), 'Other'], { rowMode: 'object' });
    expect(again.rows).toStrictEqual([]);
    expect(again.affectedRows).toBe(0);
  });

  it('when parameters are arrays and awkward strings, then they are serialized as query() serializes them', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    const names = ['a "quoted" name', 'back\\slash', '{braces},comma', 'NULL', '', 'ünïcödé 🌱'];
    const ids = names.map(() => id());
    const { rows } = await db.query(INSERT_MANY, [ids.map(String), names], { rowMode: 'object' });
    expect(rows).toStrictEqual(ids.map((value, index) => ({ id: value, name: names[index] })));
    const big = 2n ** 62n + 1n;
    const { rows: bigRows } = await db.query(INSERT, [big.toString(), 'big'], { rowMode: 'array' });
    expect(bigRows).toStrictEqual([[big, 'big']]);
  });

  it('when a text is not in the map, then it goes through query() unprepared', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    const { rows } = await db.query<{ n: number }>('select 1 as n', [], { rowMode: 'object' });
    expect(rows).toStrictEqual([{ n: 1 }]);
    expect(await preparedNames(pglite)).not.toContain('select 1 as n');
    expect((await preparedNames(pglite)).every((name) => name.startsWith('test_'))).toBe(true);
  });

  it('when the statement fails, then it rejects with the DatabaseError and the next call runs normally', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    const failed = db.query(INSERT, ['not a number', 'Fern'], { rowMode: 'object' });
    await expect(failed).rejects.toMatchObject({ code: '22P02', query: INSERT });
    const next = id();
    const { rows } = await db.query(INSERT, [next.toString(), 'Fern'], { rowMode: 'object' });
    expect(rows).toStrictEqual([{ id: next, name: 'Fern' }]);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it('when something else dropped the statements, then the next call prepares it again', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    await db.query(INSERT, [id().toString(), 'Fern']);
    await pglite.exec('deallocate all');
    const next = id();
    const { rows } = await db.query(INSERT, [next.toString(), 'Fern'], { rowMode: 'object' });
    expect(rows).toStrictEqual([{ id: next, name: 'Fern' }]);
  });

  it('when another caller holds a transaction open, then a call waits for it instead of running inside it', async () => {
    const db = withPreparedStatements(pglite, STATEMENTS);
    const [inTransaction, outside] = [id(), id()];
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const { promise: begun, resolve: began } = Promise.withResolvers<void>();
    const transaction = pglite.transaction(async (tx) => {
      await tx.query(INSERT, [inTransaction.toString(), 'rolled back']);
      began();
      await released;
      await tx.rollback();
    });
    await begun;
    const insert = db.query(INSERT, [outside.toString(), 'kept'], { rowMode: 'object' });
    // Given time to run, it must still be waiting: inside the transaction, the rollback would take it too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await transaction;
    await expect(insert).resolves.toMatchObject({ rows: [{ id: outside, name: 'kept' }] });
    const { rows } = await pglite.query('select id from things where id in ($1, $2) order by id', [
      inTransaction.toString(),
      outside.toString(),
    ]);
    expect(rows).toStrictEqual([{ id: outside }]);
  });
});

describe('withPreparedStatements, when the statement no longer fits the schema', () => {
  it('when a column it returns changed type, then it is prepared again and answers the new type', async () => {
    const pglite = await openPglite();
    try {
      const db = withPreparedStatements(pglite, STATEMENTS);
      await db.query(INSERT, ['1', 'Fern']);
      await pglite.exec('alter table things alter column name type varchar(100)');
      const { rows, fields } = await db.query(INSERT, ['2', 'Ivy'], { rowMode: 'object' });
      expect(rows).toStrictEqual([{ id: 2n, name: 'Ivy' }]);
      expect(fields.map((field) => field.dataTypeID)).toStrictEqual([types.INT8, types.VARCHAR]);
    } finally {
      await pglite.close();
    }
  });

  it('when PGlite is closed, then a call rejects as query() does', async () => {
    const pglite = await openPglite();
    const db = withPreparedStatements(pglite, STATEMENTS);
    await pglite.close();
    await expect(db.query(INSERT, ['1', 'Fern'])).rejects.toThrow('PGlite is closed');
  });

  it('when PGlite closes while a call waits for the lock, then the call rejects instead of running on it', async () => {
    const pglite = await openPglite();
    const db = withPreparedStatements(pglite, STATEMENTS);
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const { promise: begun, resolve: began } = Promise.withResolvers<void>();
    const held = pglite.transaction(async () => {
      began();
      await released;
    });
    await begun;
    // close() waits for the transaction; the call, made after it, waits behind close().
    const closing = pglite.close();
    const waiting = db.query(INSERT, ['1', 'Fern']);
    release();
    await held;
    await closing;
    await expect(waiting).rejects.toThrow(/PGlite is clos/);
  });
});

describe('openPglitePlantStorage with prepared statements', () => {
  it("when plants are created, found, listed and deleted, then the adapter's statements are the prepared ones", async () => {
    const storage = await openPglitePlantStorage({ groupCommit: false });
    try {
      const plant = { id: randomPlantId(), name: 'Monstera' };
      await storage.plants.insertIfAbsent(plant);
      await storage.plants.findById(plant.id);
      await storage.plants.listAfter(undefined, 10);
      await storage.plants.deleteById(plant.id);
      const names = await preparedNames(storage.pglite);
      expect(names).toEqual(
        expect.arrayContaining([
          'plant_store_insert_plant',
          'plant_store_find_by_id',
          'plant_store_list_first',
          'plant_store_delete_by_id',
        ]),
      );
      expect(names.every((name) => [...PLANT_STATEMENT_NAMES.values()].includes(name))).toBe(true);
    } finally {
      await storage.close();
    }
  });
});
