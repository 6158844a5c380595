import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { RunFixedStatement } from './postgres-plant-repository.ts';
import { isUnavailableError } from './storage-errors.ts';

/**
 * One pg client as kysely sees it. Kept for the client's whole life: kysely keys its own connection
 * object on this one, so a new wrapper per checkout would cost kysely a new connection object (and a
 * WeakMap entry) per statement.
 */
class TrackedClient {
  #broken = false;
  /** When the statement in flight was sent (performance.now()); 0 while none is. */
  #sentAt = 0;
  readonly #client: pg.PoolClient;
  readonly #statementNames: ReadonlyMap<string, string>;

  constructor(client: pg.PoolClient, statementNames: ReadonlyMap<string, string>) {
    this.#client = client;
    this.#statementNames = statementNames;
  }

  // Kysely reads the backend's pid here to cancel a query (pg sets it once connected; @types/pg omits it).
  get processID(): number {
    return (this.#client as pg.PoolClient & { processID: number }).processID;
  }

  // A string is a statement; anything else is a cursor (streaming), passed on as it is. A text with
  // a name is sent as a named statement: the server parses and plans it on a connection's first use only.
  query(sqlOrCursor: unknown, parameters?: readonly unknown[]): unknown {
    if (typeof sqlOrCursor !== 'string') return this.#client.query(sqlOrCursor as pg.Submittable);
    const name = this.#statementNames.get(sqlOrCursor);
    const values = parameters as unknown[];
    this.#sentAt = performance.now();
    const pending =
      name === undefined
        ? this.#client.query(sqlOrCursor, values)
        : this.#client.query({ name, text: sqlOrCursor, values });
    return pending.then(
      (result) => {
        this.#sentAt = 0;
        return result;
      },
      (error: unknown) => {
        this.#sentAt = 0;
        if (isUnavailableError(error)) this.#broken = true;
        throw error;
      },
    );
  }

  /**
   * A statement unanswered for `readTimeoutMs` means a silent connection (a network that drops it, a
   * frozen server): its socket is destroyed, so pg fails the statement ("Connection terminated
   * unexpectedly", an outage) and the pool discards the connection.
   */
  cutOffIfSilent(now: number, readTimeoutMs: number): void {
    if (this.#sentAt === 0 || now - this.#sentAt < readTimeoutMs) return;
    this.#broken = true;
    this.#sentAt = 0;
    this.#client.connection.stream.destroy();
  }

  release(destroy?: boolean): void {
    const broken = this.#broken || destroy === true;
    this.#broken = false;
    this.#client.release(broken);
  }
}

/**
 * The pool as kysely sees it, with three changes. The texts in `statementNames` are sent as named
 * (prepared) statements. A connection whose query failed because the database was lost or too
 * slow (a terminated backend, a reset socket, a read timeout) is released as broken, so pg-pool
 * closes it instead of handing it out again. And a statement left unanswered for `readTimeoutMs`
 * fails, its connection closed.
 *
 * Kysely releases a connection without its error, and pg-pool learns that the socket is gone only
 * when the close is processed: in between, the next operation could get that dead connection and
 * fail too, a second 503 for one outage. Discarding a connection after a statement timeout (still
 * usable) costs one reconnect; keeping one after a read timeout (in an unknown state) could cost
 * wrong answers.
 *
 * The read timeout is one sweep over the connections every eighth of it, so a silent statement fails
 * between `readTimeoutMs` and a quarter later. pg's own `query_timeout` arms a timer per statement:
 * 10,600 machine instructions a create at c1 (callgrind), 2% of the service's work, for a network
 * that is almost never silent. Stop the sweep with `end()`.
 */
export function discardBrokenConnections(
  pool: pg.Pool,
  statementNames: ReadonlyMap<string, string> = new Map(),
  readTimeoutMs = 15_000,
): PostgresPool {
  const tracked = new WeakMap<pg.PoolClient, TrackedClient>();
  const open = new Set<TrackedClient>();
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const client of open) client.cutOffIfSilent(now, readTimeoutMs);
    },
    Math.max(10, Math.floor(readTimeoutMs / 8)),
  );
  sweep.unref();
  return {
    options: pool.options,
    end: () => {
      clearInterval(sweep);
      return pool.end();
    },
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let wrapper = tracked.get(client);
      if (wrapper === undefined) {
        const created = new TrackedClient(client, statementNames);
        tracked.set(client, created);
        open.add(created);
        client.once('end', () => open.delete(created));
        wrapper = created;
      }
      // Its query() answers what kysely's overloads ask (a promise of the result, or the cursor).
      return wrapper as unknown as PostgresPoolClient;
    },
  };
}

/**
 * The adapter's fixed statements run on the same pool without kysely's layers (its driver, connection
 * provider and executor, ~10 us a statement): a checkout, the statement, the release, with the same
 * named statements and the same discarding of broken connections.
 */
export function fixedStatementRunner(pool: PostgresPool): RunFixedStatement {
  return async (text, parameters) => {
    const client = await pool.connect();
    try {
      const result = (await client.query(text, parameters)) as { rows: unknown[] };
      return result.rows;
    } finally {
      client.release();
    }
  };
}
