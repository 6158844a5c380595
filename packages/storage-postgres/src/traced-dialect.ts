import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_ERROR_TYPE,
} from '@opentelemetry/semantic-conventions';
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-version.ts';
import { describeStatement } from './query-summary.ts';

/** What every statement span of a dialect says of where it runs. */
export interface TracedDialectOptions {
  /**
   * The attributes of the database behind a connection (db.system.name, db.namespace, server.address
   * and server.port): asked once per connection.
   */
  readonly connectionAttributes: (connection: DatabaseConnection) => Attributes;
}

// Statements are few and their texts fixed, so each is described once; the bound keeps texts built
// at run time (none today) from growing it without end.
const MAX_DESCRIBED = 256;
const described = new Map<string, Attributes>();

function describe(query: CompiledQuery): Attributes {
  let attributes = described.get(query.sql);
  if (attributes === undefined) {
    attributes = describeStatement(query);
    if (described.size >= MAX_DESCRIBED) described.delete(described.keys().next().value as string);
    described.set(query.sql, attributes);
  }
  return attributes;
}

const TRANSACTION_STATEMENTS = {
  begin: { [ATTR_DB_OPERATION_NAME]: 'BEGIN', [ATTR_DB_QUERY_SUMMARY]: 'BEGIN' },
  commit: { [ATTR_DB_OPERATION_NAME]: 'COMMIT', [ATTR_DB_QUERY_SUMMARY]: 'COMMIT' },
  rollback: { [ATTR_DB_OPERATION_NAME]: 'ROLLBACK', [ATTR_DB_QUERY_SUMMARY]: 'ROLLBACK' },
} as const;

/**
 * The context to start a statement's span in, or none when no span is active: a statement outside
 * any traced work (the migrations at start, a relay nobody traces) makes no trace of its own. None
 * either under a span that records nothing: the SDK's samplers would not record its child.
 */
function tracedParent(): Context | undefined {
  const parent = context.active();
  return trace.getSpan(parent)?.isRecording() ? parent : undefined;
}

function startStatementSpan(parent: Context, connection: TracedConnection, statement: Attributes): Span {
  return trace
    .getTracer(PACKAGE_NAME, PACKAGE_VERSION)
    .startSpan(
      statement[ATTR_DB_QUERY_SUMMARY] as string,
      { kind: SpanKind.CLIENT, attributes: { ...connection.attributes, ...statement } },
      parent,
    );
}

// A SQLSTATE: five digits or capitals, on an error of the server (it has a severity), so that a
// network code of five letters (EPIPE) is not taken for one.
function sqlstateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('severity' in error) || !('code' in error))
    return undefined;
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

function endFailed(span: Span, error: unknown): void {
  const sqlstate = sqlstateOf(error);
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : undefined;
  const name = error instanceof Error ? error.constructor.name : undefined;
  span.setAttribute(ATTR_ERROR_TYPE, sqlstate ?? code ?? name ?? '_OTHER');
  if (sqlstate !== undefined) span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, sqlstate);
  // No message and no exception event: a server's message may quote a parameter's value.
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Runs `run` under a statement span when one is active; otherwise just runs it, adding no promise. */
function traced<T>(
  connection: TracedConnection,
  statement: () => Attributes,
  run: () => Promise<T>,
): Promise<T> {
  const parent = tracedParent();
  return parent === undefined ? run() : endAfter(startStatementSpan(parent, connection, statement()), run);
}

async function endAfter<T>(span: Span, run: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
  span.end();
  return result;
}

/** A connection of the inner driver whose statements are spans; the inner one is what its driver gets back. */
class TracedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly attributes: Attributes;

  constructor(inner: DatabaseConnection, attributes: Attributes) {
    this.inner = inner;
    this.attributes = attributes;
  }

  executeQuery<R>(compiledQuery: CompiledQuery, options?: Parameters<DatabaseConnection['executeQuery']>[1]) {
    return traced(
      this,
      () => describe(compiledQuery),
      () => this.inner.executeQuery<R>(compiledQuery, options),
    );
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize: number,
    options?: Parameters<DatabaseConnection['streamQuery']>[2],
  ): AsyncIterableIterator<QueryResult<R>> {
    const parent = tracedParent();
    const span = parent && startStatementSpan(parent, this, describe(compiledQuery));
    try {
      yield* this.inner.streamQuery<R>(compiledQuery, chunkSize, options);
    } catch (error) {
      if (span !== undefined) endFailed(span, error);
      throw error;
    }
    span?.end();
  }
}

/**
 * The inner driver, with a TracedConnection for each of its connections (one for the connection's
 * life, as kysely's own drivers keep theirs). Transactions go to the inner driver with its own
 * connection: PGlite's runs BEGIN and COMMIT through methods of its connection that a wrapper lacks.
 */
class TracedDriver implements Driver {
  readonly #inner: Driver;
  readonly #options: TracedDialectOptions;
  readonly #connections = new WeakMap<DatabaseConnection, TracedConnection>();

  constructor(inner: Driver, options: TracedDialectOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  init(options?: Parameters<Driver['init']>[0]): Promise<void> {
    return this.#inner.init(options);
  }

  async acquireConnection(options?: Parameters<Driver['acquireConnection']>[0]): Promise<TracedConnection> {
    const inner = await this.#inner.acquireConnection(options);
    let connection = this.#connections.get(inner);
    if (connection === undefined) {
      connection = new TracedConnection(inner, this.#options.connectionAttributes(inner));
      this.#connections.set(inner, connection);
    }
    return connection;
  }

  beginTransaction(connection: TracedConnection, settings: TransactionSettings): Promise<void> {
    return traced(
      connection,
      () => TRANSACTION_STATEMENTS.begin,
      () => this.#inner.beginTransaction(connection.inner, settings),
    );
  }

  commitTransaction(connection: TracedConnection): Promise<void> {
    return traced(
      connection,
      () => TRANSACTION_STATEMENTS.commit,
      () => this.#inner.commitTransaction(connection.inner),
    );
  }

  rollbackTransaction(connection: TracedConnection): Promise<void> {
    return traced(
      connection,
      () => TRANSACTION_STATEMENTS.rollback,
      () => this.#inner.rollbackTransaction(connection.inner),
    );
  }

  // Savepoints run as statements on the connection given: the traced one, so they are spans too.
  async savepoint(
    connection: TracedConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.#inner.savepoint) throw new Error('The `savepoint` method is not supported by this driver');
    await this.#inner.savepoint(connection, savepointName, compileQuery);
  }

  async rollbackToSavepoint(
    connection: TracedConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.#inner.rollbackToSavepoint)
      throw new Error('The `rollbackToSavepoint` method is not supported by this driver');
    await this.#inner.rollbackToSavepoint(connection, savepointName, compileQuery);
  }

  async releaseSavepoint(
    connection: TracedConnection,
    savepointName: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.#inner.releaseSavepoint)
      throw new Error('The `releaseSavepoint` method is not supported by this driver');
    await this.#inner.releaseSavepoint(connection, savepointName, compileQuery);
  }

  releaseConnection(
    connection: TracedConnection,
    options?: Parameters<Driver['releaseConnection']>[1],
  ): Promise<void> {
    return this.#inner.releaseConnection(connection.inner, options);
  }

  destroy(options?: Parameters<Driver['destroy']>[0]): Promise<void> {
    return this.#inner.destroy(options);
  }
}

/**
 * `dialect` with each statement a CLIENT span (stable database conventions), as a child of the span
 * active when it runs, and none when no span is: through `@opentelemetry/api` alone, a no-op until
 * the application registers an SDK.
 */
export function tracedDialect(dialect: Dialect, options: TracedDialectOptions): Dialect {
  return {
    createDriver: (): Driver => new TracedDriver(dialect.createDriver(), options),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    // biome-ignore lint/suspicious/noExplicitAny: kysely's Dialect takes any database
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => dialect.createIntrospector(db),
  };
}
