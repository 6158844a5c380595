import type { PlantStorage } from '@plant-store/domain';
import { type Kysely, sql } from 'kysely';
import { checkDatabaseEncoding } from './database-encoding.ts';
import { currentSchema, migrateToLatest } from './migrate.ts';
import type { PlantDatabase } from './plant-database.ts';
import {
  createPostgresEventOutbox,
  createPostgresPlantRepository,
  type PostgresEventOutbox,
  type PostgresPlantRepositoryOptions,
} from './postgres-plant-repository.ts';
import { mapStorageErrors } from './storage-errors.ts';

/** A PlantStorage in a PostgreSQL database (a server or PGlite): one schema, an outbox written in SQL transactions. */
export interface SqlPlantStorage extends PlantStorage {
  /** With `events: true`: the outbox; `forward` gets the relay's transaction, to write in it. */
  readonly events?: PostgresEventOutbox | undefined;
  /** The schema the plants live in: whatever else belongs to this store (a job queue) goes there too. */
  readonly schema: string;
}

/**
 * Checks that the database behind `db` stores UTF8 (else DatabaseEncodingError), migrates it and
 * wraps it as a PlantStorage that owns it: close() destroys `db`. If either fails, `db` is destroyed
 * before the error is thrown.
 */
export async function openSqlPlantStorage(
  db: Kysely<PlantDatabase>,
  options: PostgresPlantRepositoryOptions = {},
): Promise<SqlPlantStorage> {
  let schema: string;
  try {
    await checkDatabaseEncoding(db);
    await migrateToLatest(db);
    schema = await currentSchema(db);
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    plants: createPostgresPlantRepository(db, options),
    events: options.events ? createPostgresEventOutbox(db) : undefined,
    schema,
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
