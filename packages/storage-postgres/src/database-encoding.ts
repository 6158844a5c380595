import { type Kysely, sql } from 'kysely';
import type { PlantDatabase } from './plant-database.ts';
import { toStorageError } from './storage-errors.ts';

/**
 * The database stores text in another encoding than UTF8: every name it cannot represent (on LATIN1,
 * anything outside Latin-1) would fail when stored. Refused at open, before anything is migrated.
 */
export class DatabaseEncodingError extends Error {
  override readonly name = 'DatabaseEncodingError';
  readonly database: string;
  readonly encoding: string;

  constructor(database: string, encoding: string) {
    super(
      `the database "${database}" is encoded ${encoding}, not UTF8: plants may hold any Unicode text; ` +
        `use a database created with ENCODING 'UTF8' (createdb -E UTF8 -T template0)`,
    );
    this.database = database;
    this.encoding = encoding;
  }
}

/** Throws DatabaseEncodingError unless the database behind `db` stores text as UTF8. */
export async function checkDatabaseEncoding(db: Kysely<PlantDatabase>): Promise<void> {
  // server_encoding is the current database's encoding (set by CREATE DATABASE), not the server's.
  const { rows } = await sql<{ database: string; encoding: string }>`select current_database() as database,
    current_setting('server_encoding') as encoding`
    .execute(db)
    .catch((error: unknown) => {
      throw toStorageError(error);
    });
  const row = rows[0];
  if (row !== undefined && row.encoding !== 'UTF8')
    throw new DatabaseEncodingError(row.database, row.encoding);
}
