import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_SYSTEM_NAME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { Kysely } from 'kysely';
import { DataFolderUnusableError } from './data-folder.ts';
import { type DataFolderLock, lockDataFolder } from './data-folder-lock.ts';
import type { PlantDatabase } from './plant-database.ts';
import { PLANT_STATEMENT_NAMES } from './plant-statements.ts';
import type { PostgresPlantRepositoryOptions } from './postgres-plant-repository.ts';
import { openSqlPlantStorage, type SqlPlantStorage } from './sql-plant-storage.ts';
import { tracedDialect } from './traced-dialect.ts';

export interface PglitePlantStorageOptions {
  /**
   * Folder of the database files, created if missing: a path, relative to the working directory or
   * absolute, never one of PGlite's URLs (`file://x` is a folder of that name). Absent: the database
   * lives in memory only.
   */
  readonly dataDir?: string;
  /** Concurrent inserts committed together (see createPostgresPlantRepository); `false`: one INSERT each. */
  readonly groupCommit?: PostgresPlantRepositoryOptions['groupCommit'];
  /** Record the event of each plant created in the outbox (see PlantStorage.events). Default: off. */
  readonly events?: boolean;
}

/** The storage on PGlite, and the PGlite instance itself, for whatever else shares its one connection. */
export interface PglitePlantStorage extends SqlPlantStorage {
  readonly pglite: PGlite;
}

// PGlite does not lock its folder, and two instances writing one folder would corrupt it: within
// this process a set of the open folders says so at once; across processes, lockDataFolder.
const openDataDirs = new Set<string>();

function claimDataDir(dataDir: string): string {
  const key = resolve(dataDir);
  if (openDataDirs.has(key)) throw new Error(`the PGlite data folder ${key} is already open in this process`);
  openDataDirs.add(key);
  return key;
}

/**
 * Opens a PlantStorage on embedded PostgreSQL (PGlite) and runs the migrations before it
 * resolves. One process at a time may open a data folder: another live holder makes it reject with
 * DataFolderInUseError (a holder that died holds nothing). close() shuts PostgreSQL down cleanly so
 * the folder is consistent for the next open, then lets the folder go.
 */
export async function openPglitePlantStorage(
  options: PglitePlantStorageOptions = {},
): Promise<PglitePlantStorage> {
  // Absolute: PGlite then reads no prefix of its own (file://, memory://, idb://) into the folder the
  // lock was taken on.
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const claimed = dataDir === undefined ? undefined : claimDataDir(dataDir);
  const release = (): void => {
    if (claimed !== undefined) openDataDirs.delete(claimed);
  };

  let lock: DataFolderLock | undefined;
  let pglite: PGlite | undefined;
  let storage: SqlPlantStorage;
  try {
    if (dataDir !== undefined) {
      // Makes the folder, or refuses it by name (DataFolderUnusableError).
      lock = await lockDataFolder(dataDir);
    }
    // Loaded when chosen: a service on a PostgreSQL server does not carry PGlite's code in memory.
    const [{ PGlite, types }, { PreparedPgliteDialect }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('./prepared-pglite-dialect.ts'),
    ]);
    // PGlite reads int8 as a number when it fits in 2^53 and as a bigint beyond: one type, exact, always.
    const parsers = { [types.INT8]: (value: string) => BigInt(value) };
    pglite = new PGlite(dataDir === undefined ? { parsers } : { dataDir, parsers });
    if (dataDir !== undefined) {
      const folder = dataDir;
      // PGlite says no more than that it could not start: a folder it may not write, or not its own.
      await pglite.waitReady.catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new DataFolderUnusableError(
          folder,
          `the data folder ${folder} cannot be used: PGlite could not start on it (${reason})`,
          { cause: error },
        );
      });
    }
    // The storage's statements named, as on a server: PGlite's query() would parse and plan each on
    // every call (bench/PROFILE.md). PostgreSQL in the process: its one database, no server to name.
    const attributes = {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_NAMESPACE]: 'postgres',
    };
    const dialect = tracedDialect(
      new PreparedPgliteDialect({ pglite, statementNames: PLANT_STATEMENT_NAMES }),
      { connectionAttributes: () => attributes },
    );
    storage = await openSqlPlantStorage(new Kysely<PlantDatabase>({ dialect }), {
      ...(options.groupCommit === undefined ? {} : { groupCommit: options.groupCommit }),
      events: options.events === true,
    });
  } catch (error) {
    // kysely closes PGlite only once it has started; a PGlite that failed to start is closed here.
    if (pglite && !pglite.closed) await pglite.close().catch(() => {});
    await lock?.release();
    release();
    throw error;
  }
  const opened = pglite;
  const held = lock;
  return {
    plants: storage.plants,
    events: storage.events,
    schema: storage.schema,
    pglite: opened,
    checkReady: () => storage.checkReady(),
    close: async () => {
      await storage.close();
      await held?.release();
      release();
    },
  };
}
