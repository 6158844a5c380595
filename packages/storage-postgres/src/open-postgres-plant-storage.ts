import { Kysely } from 'kysely';
import pg from 'pg';
import type { PlantDatabase } from './plant-database.ts';
import { PLANT_STATEMENT_NAMES } from './plant-statements.ts';
import { PooledPostgresDialect, pooledConnectionAttributes } from './pooled-postgres-dialect.ts';
import type { PostgresPlantRepositoryOptions } from './postgres-plant-repository.ts';
import { openSqlPlantStorage, type SqlPlantStorage } from './sql-plant-storage.ts';
import { tracedDialect } from './traced-dialect.ts';

export interface PostgresPlantStorageOptions {
  /** `postgres://user:password@host:port/database`; libpq `options` (e.g. `-c search_path=...`) are passed on. */
  readonly connectionString: string;
  /** Most connections held open at once. Default 10. */
  readonly poolSize?: number;
  /** How long to wait for a connection before the operation fails as unavailable. Default 5000. */
  readonly connectionTimeoutMillis?: number;
  /** The server cancels a statement running longer than this (SQLSTATE 57014). Default 10000. */
  readonly statementTimeoutMillis?: number;
  /**
   * How long to wait for any answer of the server before the operation fails as unavailable and its
   * connection is closed: a silent network, a frozen server. Default statementTimeoutMillis + 5000.
   */
  readonly readTimeoutMillis?: number;
  /**
   * Concurrent inserts committed together (see createPostgresPlantRepository). Default: up to 2
   * batches at once; `false`: one INSERT per insert.
   */
  readonly groupCommit?: PostgresPlantRepositoryOptions['groupCommit'];
  /** Record the event of each plant created in the outbox (see PlantStorage.events). Default: off. */
  readonly events?: boolean;
  /**
   * The adapter's frequent statements are prepared once per connection (named statements), so the
   * server parses and plans them once, not on every call. Default: true. Turn off behind a pooler
   * that moves a session's statements between server connections: PgBouncer before 1.21 in
   * transaction mode, or 1.21+ without `max_prepared_statements`.
   */
  readonly preparedStatements?: boolean;
}

/** A snapshot of the pg pool, for a service's metrics. */
export interface ConnectionPoolStats {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Operations waiting for a connection. */
  readonly waiting: number;
  /** The most connections the pool opens. */
  readonly max: number;
}

/** The storage on a PostgreSQL server, and how its connection pool is used now. */
export interface PostgresPlantStorage extends SqlPlantStorage {
  connectionPool(): ConnectionPoolStats;
}

// Per pool, not pg.types.setTypeParser: changing pg's global parsers would change every other
// pg user in the process. int8 as a bigint keeps ids above 2^53 exact; pg's default is a string.
const int8AsBigInt: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => BigInt(value)
      : pg.types.getTypeParser(oid, format),
};

/**
 * Opens a PlantStorage on a PostgreSQL server through a pg pool and runs the migrations
 * before it resolves. Rejects with StorageUnavailableError when the server cannot be reached.
 */
export async function openPostgresPlantStorage(
  options: PostgresPlantStorageOptions,
): Promise<PostgresPlantStorage> {
  const statementTimeout = options.statementTimeoutMillis ?? 10_000;
  const max = options.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    statement_timeout: statementTimeout,
    // The server's statement_timeout answers first; this catches a server that went silent (a dead
    // network drops no packets back), which statement_timeout cannot.
    query_timeout: options.readTimeoutMillis ?? statementTimeout + 5_000,
    keepAlive: true,
    types: int8AsBigInt,
  });
  // A client whose connection dies (server restart, admin shutdown, network) emits 'error':
  // on the pool while idle, on the client itself while checked out, after its query has failed.
  // Unheard, either crashes the process. pg drops a broken client and opens a new one later.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const dialect = tracedDialect(
    new PooledPostgresDialect({
      pool,
      ...(options.preparedStatements === false ? {} : { statementNames: PLANT_STATEMENT_NAMES }),
    }),
    { connectionAttributes: pooledConnectionAttributes },
  );
  const storage = await openSqlPlantStorage(new Kysely<PlantDatabase>({ dialect }), {
    groupCommit: options.groupCommit === false ? false : { maxConcurrentBatches: 2, ...options.groupCommit },
    events: options.events === true,
  });
  return {
    ...storage,
    connectionPool: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max,
    }),
  };
}
