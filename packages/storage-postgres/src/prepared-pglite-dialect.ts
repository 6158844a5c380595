// Imported only with PGlite itself (open-pglite-plant-storage.ts loads it when PGlite is chosen).
import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PGliteDialect,
  PGliteDriver,
  type QueryResult,
} from 'kysely';

export interface PreparedPgliteDialectOptions {
  readonly pglite: PGlite;
  /** Texts sent as named (prepared) statements, by the name each is prepared under. */
  readonly statementNames: ReadonlyMap<string, string>;
}

/**
 * Kysely on PGlite, as kysely's PGliteDialect, but the texts of `statementNames` are named statements:
 * PGlite's `query()` parses, describes and plans every statement on every call, so the storage's own
 * statements are parsed once for the instance's life and then only bound and executed, through
 * PGlite's protocol API (`execProtocol`, under `runExclusive` as PGlite documents). Every other text,
 * and transactions, go through kysely's own driver unchanged.
 */
export class PreparedPgliteDialect extends PGliteDialect {
  readonly #options: PreparedPgliteDialectOptions;

  constructor(options: PreparedPgliteDialectOptions) {
    super({ pglite: options.pglite });
    this.#options = options;
  }

  override createDriver(): Driver {
    return new PreparedPgliteDriver(this.#options);
  }
}

const { serialize } = protocol;

/** kysely's own PGlite connection, which its driver's transactions take (its type is not exported). */
type KyselyPgliteConnection = Parameters<PGliteDriver['beginTransaction']>[0];

function concat(messages: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(messages.reduce((length, message) => length + message.byteLength, 0));
  let offset = 0;
  for (const message of messages) {
    out.set(message, offset);
    offset += message.byteLength;
  }
  return out;
}

/** kysely's PGlite connection, with the named statements beside it; the inner one is what its driver gets back. */
class PreparedPgliteConnection implements DatabaseConnection {
  readonly inner: KyselyPgliteConnection;
  readonly #pglite: PGlite;
  readonly #statementNames: ReadonlyMap<string, string>;
  /** The parameter types of each statement prepared in this instance, by name. */
  readonly #prepared = new Map<string, readonly number[]>();
  /** Inside a transaction of kysely's: kysely lets no other caller use the connection meanwhile. */
  inTransaction = false;

  constructor(inner: KyselyPgliteConnection, options: PreparedPgliteDialectOptions) {
    this.inner = inner;
    this.#pglite = options.pglite;
    this.#statementNames = options.statementNames;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const name = this.#statementNames.get(compiledQuery.sql);
    if (name !== undefined) {
      const result = await this.#pglite.runExclusive(() => this.#runNamed<R>(name, compiledQuery));
      if (result !== undefined) return result;
    }
    return this.inner.executeQuery<R>(compiledQuery);
  }

  /**
   * The statement bound and executed under its name; undefined when that cannot be done now, so that
   * kysely's query() path says or waits what PGlite's `query()` does: PGlite closing or closed (its
   * errors), or a transaction another user of the instance holds open (it waits for its end, where a
   * statement sent here would run inside it).
   */
  async #runNamed<R>(name: string, compiledQuery: CompiledQuery): Promise<QueryResult<R> | undefined> {
    const pglite = this.#pglite;
    if (!pglite.ready || (!this.inTransaction && pglite.isInTransaction())) return undefined;
    let types = this.#prepared.get(name);
    if (types === undefined) {
      // Sync ends the message cycle (inside a transaction it commits nothing); a failed Parse keeps no name.
      const { messages } = await pglite.execProtocol(
        concat([
          serialize.parse({ name, text: compiledQuery.sql }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        ]),
        { syncToFs: false },
      );
      types = parse.parseDescribeStatementResults(messages);
      this.#prepared.set(name, types);
    }
    // Serialized by the parameters' types as PGlite's query() does.
    const values = compiledQuery.parameters.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = pglite.serializers[types[index] as number];
      return serializer === undefined ? String(value) : serializer(value);
    });
    const { messages } = await pglite.execProtocol(
      concat([
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      // As query(): the filesystem synced after a statement outside a transaction.
      { syncToFs: !this.inTransaction },
    );
    const [result] = parse.parseResults(messages, pglite.parsers, { rowMode: 'object' });
    // As kysely's PGlite connection answers.
    const rows = (result?.rows ?? []) as R[];
    return result?.affectedRows == null ? { rows } : { numAffectedRows: BigInt(result.affectedRows), rows };
  }

  // kysely's PGlite connection refuses to stream.
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>();
  }
}

/**
 * kysely's PGliteDriver, with a PreparedPgliteConnection over its one connection. Transactions go to
 * it with its own connection (it runs BEGIN and COMMIT through methods a wrapper lacks); savepoints,
 * statements it runs on the connection given, go through this one (none is named).
 */
class PreparedPgliteDriver extends PGliteDriver {
  readonly #options: PreparedPgliteDialectOptions;
  #connection: PreparedPgliteConnection | undefined;

  constructor(options: PreparedPgliteDialectOptions) {
    super({ pglite: options.pglite });
    this.#options = options;
  }

  override async acquireConnection(): Promise<PreparedPgliteConnection> {
    const inner = (await super.acquireConnection()) as KyselyPgliteConnection;
    if (this.#connection?.inner !== inner)
      this.#connection = new PreparedPgliteConnection(inner, this.#options);
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const prepared = connection as PreparedPgliteConnection;
    await super.beginTransaction(prepared.inner);
    prepared.inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const prepared = connection as PreparedPgliteConnection;
    prepared.inTransaction = false;
    await super.commitTransaction(prepared.inner);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const prepared = connection as PreparedPgliteConnection;
    prepared.inTransaction = false;
    await super.rollbackTransaction(prepared.inner);
  }
}
