import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import {
  AbortedTransactionError,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { isUnavailableError } from './storage-errors.ts';

export interface PooledPostgresDialectOptions {
  readonly pool: pg.Pool;
  /** Texts sent as named (prepared) statements, by the name each is prepared under. */
  readonly statementNames?: ReadonlyMap<string, string>;
}

/**
 * Kysely on a pg pool, as kysely's PostgresDialect, with two more things it does for the storage:
 *
 * - The texts of `statementNames` are sent as named statements: the server parses and plans each
 *   once per connection, not on every call.
 * - A connection whose statement failed because the database was lost or too slow (a terminated
 *   backend, a reset socket, pg's `query_timeout`) is released as broken, so pg-pool closes it instead
 *   of handing it out again: pg-pool learns that the socket is gone only when the close is processed,
 *   and in between the next operation could get that dead connection and fail too, a second 503 for
 *   one outage. Discarding one after a statement timeout (still usable) costs a reconnect; keeping
 *   one after a read timeout (in an unknown state) could cost wrong answers.
 */
export class PooledPostgresDialect extends PostgresDialect {
  readonly #options: PooledPostgresDialectOptions;

  constructor(options: PooledPostgresDialectOptions) {
    super({ pool: options.pool });
    this.#options = options;
  }

  override createDriver(): PooledPostgresDriver {
    return new PooledPostgresDriver(this.#options);
  }
}

/** One pg client as kysely sees it, kept for the client's whole life (see the driver's WeakMap). */
class PooledConnection implements DatabaseConnection {
  #broken = false;
  readonly #client: pg.PoolClient;
  readonly #statementNames: ReadonlyMap<string, string>;
  /** Where the client went, as pg resolved it (connection string, PG* variables, defaults), for spans. */
  readonly attributes: Attributes;

  constructor(client: pg.PoolClient, statementNames: ReadonlyMap<string, string>) {
    this.#client = client;
    this.#statementNames = statementNames;
    this.attributes = {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      ...(client.database === undefined ? {} : { [ATTR_DB_NAMESPACE]: client.database }),
      [ATTR_SERVER_ADDRESS]: client.host,
      [ATTR_SERVER_PORT]: client.port,
    };
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { command, rowCount, rows } = await this.run<R>(compiledQuery.sql, compiledQuery.parameters);
    const changed =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return changed ? { numAffectedRows: BigInt(rowCount ?? 0), rows } : { rows };
  }

  /** Sends a text, named when it has a name, and marks the connection broken when it fails for an outage. */
  async run<R>(
    text: string,
    parameters: readonly unknown[] = [],
  ): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    const name = this.#statementNames.get(text);
    // pg reads the values and never writes them; kysely hands them over read-only.
    const values = parameters as unknown[];
    try {
      return await this.#client.query<R & pg.QueryResultRow, unknown[]>(
        name === undefined ? { text, values } : { name, text, values },
      );
    } catch (error) {
      if (isUnavailableError(error)) this.#broken = true;
      throw error;
    }
  }

  // Nothing of the storage streams; a cursor would need pg-cursor.
  // biome-ignore lint/correctness/useYield: refuses before the first row
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the storage connection');
  }

  markBroken(): void {
    this.#broken = true;
  }

  release(): void {
    const broken = this.#broken;
    this.#broken = false;
    this.#client.release(broken);
  }
}

/** The span attributes of a connection of PooledPostgresDialect: its database and server. */
export function pooledConnectionAttributes(connection: DatabaseConnection): Attributes {
  return connection instanceof PooledConnection ? connection.attributes : {};
}

/** The driver of PooledPostgresDialect, written as kysely's PostgresDriver: a connection object per pool client. */
export class PooledPostgresDriver implements Driver {
  #pool: pg.Pool | undefined;
  readonly #statementNames: ReadonlyMap<string, string>;
  // As kysely's PostgresDriver: one connection object per pg client, reused across checkouts.
  readonly #connections = new WeakMap<pg.PoolClient, PooledConnection>();

  constructor(options: PooledPostgresDialectOptions) {
    this.#pool = options.pool;
    this.#statementNames = options.statementNames ?? new Map();
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<PooledConnection> {
    const pool = this.#pool;
    if (pool === undefined) throw new Error('driver has already been destroyed');
    const client = await pool.connect();
    if (this.#pool === undefined) {
      client.release();
      throw new Error('driver has already been destroyed');
    }
    let connection = this.#connections.get(client);
    if (connection === undefined) {
      const created = new PooledConnection(client, this.#statementNames);
      this.#connections.set(client, created);
      connection = created;
    }
    return connection;
  }

  async beginTransaction(connection: PooledConnection, settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = 'start transaction';
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    await connection.run(text);
  }

  async commitTransaction(connection: PooledConnection): Promise<void> {
    // PostgreSQL completes COMMIT with a ROLLBACK tag when an earlier error left the transaction aborted.
    const { command } = await connection.run('commit');
    if (command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  async rollbackTransaction(connection: PooledConnection): Promise<void> {
    try {
      await connection.run('rollback');
    } catch (error) {
      // A session that cannot roll back is in an unknown state: never handed out again.
      connection.markBroken();
      throw error;
    }
  }

  async releaseConnection(connection: PooledConnection): Promise<void> {
    connection.release();
  }

  async destroy(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }
}
