import { StorageUnavailableError } from '@plant-store/domain';

// SQLSTATE classes and codes that mean "the database cannot serve now, try again later":
// 08 connection exception, 53 insufficient resources (too many connections, disk full, out of memory).
const UNAVAILABLE_SQLSTATE_CLASSES = new Set(['08', '53']);
const UNAVAILABLE_SQLSTATES = new Set([
  // read_only_sql_transaction: the service never opens a read-only transaction, so this is a
  // connection to a standby, or to a leader that Patroni demoted; writes are back on a new
  // connection to the new leader.
  '25006',
  '57014', // query_canceled: statement_timeout was hit
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
]);

const UNAVAILABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Out of file descriptors, in this process or the whole system: no socket for a new connection.
  'EMFILE',
  'ENFILE',
]);

// pg, pg-pool and kysely report lost connections, timeouts and closed pools as plain Errors.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // also "... unexpectedly" and "... due to connection timeout"
  'timeout expired',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'driver has already been destroyed',
  'PGlite is closed',
  'PGlite is closing',
];

function isUnavailableItself(error: object): boolean {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    if (UNAVAILABLE_NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((known) => message.startsWith(known));
}

/**
 * Whether an error means the database could not be reached or did not answer in time.
 * Looks through `cause` and AggregateError's `errors` (a host with IPv4 and IPv6 addresses
 * refuses with one error per address).
 */
export function isUnavailableError(error: unknown): boolean {
  return isUnavailableWithin(error, 0);
}

function isUnavailableWithin(error: unknown, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if (error instanceof StorageUnavailableError || isUnavailableItself(error)) return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isUnavailableWithin(inner, depth + 1))
  ) {
    return true;
  }
  return 'cause' in error && isUnavailableWithin(error.cause, depth + 1);
}

/** Outages become the domain's StorageUnavailableError, with the driver's error as `cause`; anything else passes unchanged. */
export function toStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || !isUnavailableError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(`the database is unavailable: ${reason}`, { cause: error });
}

/** Runs one storage operation and maps its outage errors for the domain. */
export async function mapStorageErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toStorageError(error);
  }
}
