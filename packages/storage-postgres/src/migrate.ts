import { StorageUnavailableError } from '@plant-store/domain';
import { type DatabaseIntrospector, type Kysely, sql } from 'kysely';
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely/migration';
import * as createPlants from './migrations/0001_create_plants.ts';
import * as createPlantEvents from './migrations/0002_create_plant_events.ts';
import * as indexPlantPages from './migrations/0003_index_plant_pages.ts';
import * as keepEventTraceContext from './migrations/0004_keep_event_trace_context.ts';
import * as indexPlantTagPages from './migrations/0005_index_plant_tag_pages.ts';
import type { PlantDatabase } from './plant-database.ts';
import { isUnavailableError } from './storage-errors.ts';

// Imported, not read from a folder: works from any working directory and inside a bundle.
// Names sort in the order the migrations must run.
const migrations: Record<string, Migration> = {
  '0001_create_plants': createPlants,
  '0002_create_plant_events': createPlantEvents,
  '0003_index_plant_pages': indexPlantPages,
  '0004_keep_event_trace_context': keepEventTraceContext,
  '0005_index_plant_tag_pages': indexPlantTagPages,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Why the database will not take the service's tables, for a reason only its operator can mend. */
export type SchemaRefusal = 'no schema' | 'not permitted' | 'read-only' | 'newer version';

/** The database will not take the service's tables: `reason` says why, the message in the database's words. */
export class SchemaRefusedError extends Error {
  override readonly name = 'SchemaRefusedError';
  readonly reason: SchemaRefusal;

  constructor(reason: SchemaRefusal, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** The schema that unqualified names create in: the first existing one on the search_path. */
export async function currentSchema(db: Kysely<PlantDatabase>): Promise<string> {
  const { rows } = await sql<{
    schema: string | null;
    path: string;
  }>`select current_schema() as schema, current_setting('search_path') as path`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new SchemaRefusedError('no schema', `no schema of the search_path (${rows[0]?.path}) exists`);
  }
  return schema;
}

// kysely's words when the database has run a migration this version does not have (from a newer one).
const UNKNOWN_MIGRATION = /previously executed migration (\S+) is missing/;

/** The refusal `error` is, if it is one: a missing schema, no right to create there, a read-only server, a newer schema. */
function schemaRefusal(error: unknown): SchemaRefusedError | undefined {
  if (error instanceof SchemaRefusedError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (code === '42501') return new SchemaRefusedError('not permitted', message, { cause: error });
  // A standby, or default_transaction_read_only: later, the same is an outage (503); at start, a refusal.
  if (code === '25006') return new SchemaRefusedError('read-only', message, { cause: error });
  const unknown = UNKNOWN_MIGRATION.exec(message)?.[1];
  if (unknown !== undefined) {
    return new SchemaRefusedError(
      'newer version',
      `a newer version of the service migrated this schema: its migration ${unknown} is not one of this version's`,
      { cause: error },
    );
  }
  return undefined;
}

/**
 * `db` as the migrator sees it: introspection of `schema` alone, since the migrator only asks whether its
 * own tables exist, and kysely's scan of every schema by name fails when another process drops one.
 */
function introspectingOnly(db: Kysely<PlantDatabase>, schema: string): Kysely<PlantDatabase> {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () =>
      (
        await sql<{
          name: string;
        }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)
      ).rows,
    getTables: async () =>
      (
        await sql<{ name: string; schema: string; isView: boolean }>`
          select c.relname as name, n.nspname as schema, c.relkind = 'v' as "isView"
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p', 'f')`.execute(db)
      ).rows.map((row) => ({ ...row, isForeign: false, columns: [] })),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      // Kysely's methods read its private fields: they must run on the instance, not the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Brings the schema to the latest migration. Safe to run from several processes at once:
 * kysely serialises them with an advisory lock. Throws SchemaRefusedError when the database will
 * not take the tables, StorageUnavailableError when it cannot be reached, and an Error naming the
 * failed migration otherwise.
 */
export async function migrateToLatest(db: Kysely<PlantDatabase>): Promise<void> {
  let outcome: MigrationResultSet;
  try {
    // Without an explicit schema, kysely looks for its migration tables in every schema, so a
    // schema of its own beside others that have them (one schema per test run) would never get them.
    const migrationTableSchema = await currentSchema(db);
    outcome = await new Migrator({
      db: introspectingOnly(db, migrationTableSchema),
      provider,
      migrationTableSchema,
    }).migrateToLatest();
  } catch (error) {
    outcome = { error };
  }
  const { error, results = [] } = outcome;
  if (error === undefined) return;
  const refusal = schemaRefusal(error);
  if (refusal !== undefined) throw refusal;
  const reason = error instanceof Error ? error.message : String(error);
  if (isUnavailableError(error)) {
    throw new StorageUnavailableError(`cannot migrate: the database is unavailable: ${reason}`, {
      cause: error,
    });
  }
  const failed = results.find((result) => result.status === 'Error')?.migrationName;
  const what = failed === undefined ? 'preparing the migrations' : `migration ${failed}`;
  throw new Error(`database migration failed at ${what}: ${reason}`, { cause: error });
}
