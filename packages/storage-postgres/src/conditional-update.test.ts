import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS } from '@plant-store/test-support';
import { type CompiledQuery, Kysely, PGliteDialect, type QueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';
import type { PlantDatabase } from './plant-database.ts';
import { UPDATE_PLANT_IF } from './plant-statements.ts';
import { createPostgresPlantRepository } from './postgres-plant-repository.ts';

/**
 * A repository on PGlite whose database runs `meanwhile` once, right after the first conditional
 * update that changed nothing: another writer's turn between that statement and the read after it.
 */
async function withWriteBetween(meanwhile: (db: Kysely<PlantDatabase>) => Promise<unknown>) {
  const storage = await openPglitePlantStorage();
  const db = new Kysely<PlantDatabase>({ dialect: new PGliteDialect({ pglite: storage.pglite }) });
  let done = false;
  const hooked = new Proxy(db, {
    get(target, property) {
      if (property === 'executeQuery') {
        return async <Row>(query: CompiledQuery<Row>): Promise<QueryResult<Row>> => {
          const result = await target.executeQuery(query);
          if (!done && query.sql === UPDATE_PLANT_IF.sql && result.rows.length === 0) {
            done = true;
            await meanwhile(target);
          }
          return result;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { storage, plants: createPostgresPlantRepository(hooked, { groupCommit: false }) };
}

describe('a conditional update on PostgreSQL', { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
  it('when the expected content is written back between the update that missed it and the read after it, then the update is tried again and changes the plant', async () => {
    const { storage, plants } = await withWriteBetween((db) =>
      db.updateTable('plants').set({ name: 'Fern' }).where('id', '=', 1n).execute(),
    );
    try {
      await plants.insertIfAbsent({ id: 1n, name: 'Palm' });
      await expect(plants.update(1n, { tag: 'x' }, { name: 'Fern' })).resolves.toStrictEqual({
        outcome: 'updated',
        plant: { id: 1n, name: 'Fern', tag: 'x' },
      });
    } finally {
      await storage.close();
    }
  });

  it('when the plant is created with the expected content between the update that found none and the read after it, then the update changes it', async () => {
    const { storage, plants } = await withWriteBetween((db) =>
      db.insertInto('plants').values({ id: 2n, name: 'Fern', tag: '' }).execute(),
    );
    try {
      await expect(plants.update(2n, { name: 'Palm' }, { name: 'Fern', tag: '' })).resolves.toStrictEqual({
        outcome: 'updated',
        plant: { id: 2n, name: 'Palm', tag: '' },
      });
    } finally {
      await storage.close();
    }
  });

  it('when the plant is deleted between the update that missed it and the read after it, then it answers absent', async () => {
    const { storage, plants } = await withWriteBetween((db) =>
      db.deleteFrom('plants').where('id', '=', 3n).execute(),
    );
    try {
      await plants.insertIfAbsent({ id: 3n, name: 'Palm' });
      await expect(plants.update(3n, { tag: 'x' }, { name: 'Fern' })).resolves.toStrictEqual({
        outcome: 'absent',
      });
      await expect(plants.findById(3n)).resolves.toBeUndefined();
    } finally {
      await storage.close();
    }
  });
});
