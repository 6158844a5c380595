import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS } from '@plant-store/test-support';
import { describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';

describePlantRepositoryContract('PGlite in memory', {
  open: (options) => openPglitePlantStorage(options),
  durable: false,
});

// GROUP_COMMIT=off: one INSERT per create, outside the coalescer; the same contract holds.
describePlantRepositoryContract('PGlite in memory, without group commit', {
  open: (options) => openPglitePlantStorage({ groupCommit: false, ...options }),
  durable: false,
});

// pg-boss and the outbox relay share the one PGlite instance: a statement of the storage must never
// run inside a transaction someone else holds open on it.
describe('openPglitePlantStorage, sharing its PGlite', { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
  it('when another user holds a transaction open, then a create waits for it instead of running inside it', async () => {
    const storage = await openPglitePlantStorage({ groupCommit: false });
    try {
      const { promise: released, resolve: release } = Promise.withResolvers<void>();
      const { promise: begun, resolve: began } = Promise.withResolvers<void>();
      const transaction = storage.pglite.transaction(async (tx) => {
        await tx.query("insert into plants (id, name) values (1, 'rolled back')");
        began();
        await released;
        await tx.rollback();
      });
      await begun;
      const created = storage.plants.insertIfAbsent({ id: 2n, name: 'kept' });
      // Given time to run, it must still be waiting: inside the transaction, the rollback would take it too.
      await new Promise((resolve) => setTimeout(resolve, 20));
      release();
      await transaction;
      await expect(created).resolves.toStrictEqual({ inserted: true });
      await expect(storage.plants.findById(1n)).resolves.toBeUndefined();
      await expect(storage.plants.findById(2n)).resolves.toStrictEqual({ id: 2n, name: 'kept' });
    } finally {
      await storage.close();
    }
  });

  it('when a statement fails, then it rejects with the database error and the next one runs outside any transaction', async () => {
    const storage = await openPglitePlantStorage({ groupCommit: false });
    try {
      await storage.pglite.exec('alter table plants add constraint short_names check (length(name) < 10)');
      await expect(storage.plants.insertIfAbsent({ id: 1n, name: 'a name too long' })).rejects.toMatchObject({
        code: '23514',
      });
      expect(storage.pglite.isInTransaction()).toBe(false);
      await expect(storage.plants.insertIfAbsent({ id: 1n, name: 'Fern' })).resolves.toStrictEqual({
        inserted: true,
      });
      await expect(storage.plants.findById(1n)).resolves.toStrictEqual({ id: 1n, name: 'Fern' });
    } finally {
      await storage.close();
    }
  });
});
