import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isUnavailableError } from './storage-errors.ts';

/**
 * The pool as kysely sees it, except that a connection whose query failed because the database was
 * lost or too slow (a terminated backend, a reset socket, a read timeout) is released as broken,
 * so pg-pool closes it instead of handing it out again.
 *
 * Kysely releases a connection without its error, and pg-pool learns that the socket is gone only
 * when the close is processed: in between, the next operation could get that dead connection and
 * fail too, a second 503 for one outage. Discarding a connection after a statement timeout (still
 * usable) costs one reconnect; keeping one after a read timeout (in an unknown state) could cost
 * wrong answers.
 */
export function discardBrokenConnections(pool: pg.Pool): PostgresPool {
  return {
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken = false;
      const track = <T>(pending: Promise<T>): Promise<T> =>
        pending.catch((error: unknown) => {
          if (isUnavailableError(error)) broken = true;
          throw error;
        });
      // A string is a statement; anything else is a cursor (streaming), passed on as it is.
      const query = (sqlOrCursor: unknown, parameters?: readonly unknown[]) =>
        typeof sqlOrCursor === 'string'
          ? track(client.query(sqlOrCursor, parameters as unknown[]))
          : client.query(sqlOrCursor as pg.Submittable);
      return {
        // Kysely reads the backend's pid here to cancel a query (pg sets it once connected; @types/pg omits it).
        get processID() {
          return (client as pg.PoolClient & { processID: number }).processID;
        },
        query: query as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(broken || destroy === true),
      };
    },
  };
}
