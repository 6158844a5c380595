import type { PlantStorage } from '@plant-store/domain';
import { type Kysely, sql } from 'kysely';
import { migrateToLatest } from './migrate.ts';
import type { PlantDatabase } from './plant-database.ts';
import {
  createPostgresPlantRepository,
  type PostgresPlantRepositoryOptions,
} from './postgres-plant-repository.ts';
import { mapStorageErrors } from './storage-errors.ts';

/**
 * Migrates the database behind `db` and wraps it as a PlantStorage that owns it: close()
 * destroys `db`. If migrating fails, `db` is destroyed before the error is thrown.
 */
export async function openKyselyPlantStorage(
  db: Kysely<PlantDatabase>,
  options: PostgresPlantRepositoryOptions = {},
): Promise<PlantStorage> {
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    plants: createPostgresPlantRepository(db, options),
    checkReady: () =>
      mapStorageErrors(async () => {
        await sql`select 1`.execute(db);
      }),
    close: () => {
      closing ??= db.destroy();
      return closing;
    },
  };
}
