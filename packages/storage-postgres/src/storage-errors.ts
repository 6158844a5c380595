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
  // Out of file descriptors, in this process or the whole system: no socket for a new connection.
  'EMFILE',
  'ENFILE',
]);

// Where the driver gives no code, its message is all there is: only these, each with the driver that
// says it. storage-error-messages.test.ts provokes every one from the driver versions it pins, so an
// upgrade that rewords one fails a test instead of turning a 503 into a 500.
export const UNAVAILABLE_MESSAGES = [
  { driver: 'pg', message: 'Connection terminated' }, // also "... unexpectedly", "... due to connection timeout"
  { driver: 'pg', message: 'timeout expired' },
  { driver: 'pg', message: 'Query read timeout' },
  { driver: 'pg', message: 'Client has encountered a connection error and is not queryable' },
  { driver: 'pg', message: 'Client was closed and is not queryable' },
  { driver: 'pg-pool', message: 'timeout exceeded when trying to connect' },
  { driver: 'pg-pool', message: 'Cannot use a pool after calling end on the pool' },
  { driver: 'kysely', message: 'driver has already been destroyed' },
  { driver: '@electric-sql/pglite', message: 'PGlite is closed' },
  { driver: '@electric-sql/pglite', message: 'PGlite is closing' },
] as const;

/**
 * A host name in DATABASE_URL is resolved for every new connection. Its failure is an outage whatever
 * the code: glibc gives ENOTFOUND, EMFILE or a stray errno (EBUSY) when it cannot open /etc/hosts or a
 * socket to the resolver, so a name that no longer exists cannot be told from a resolver that cannot
 * answer now; and the name resolved when the storage opened (a start that cannot resolve it is refused).
 */
function isNameResolutionFailure(error: object): boolean {
  return 'syscall' in error && error.syscall === 'getaddrinfo';
}

function isUnavailableItself(error: object): boolean {
  if (isNameResolutionFailure(error)) return true;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    if (UNAVAILABLE_NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGES.some((known) => message.startsWith(known.message));
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

// pg's words when the server answers its request for TLS with no (no code; provoked in
// storage-error-messages.test.ts from the pinned version).
export const NO_TLS_MESSAGE = 'The server does not support SSL connections';

/**
 * Why a server that answers refuses this connection for good, which only its operator can mend:
 * the database does not exist (3D000), the user or password is refused (class 28), TLS was asked
 * for (sslmode, ssl) and the server has none, or a setting the connection asks for (DATABASE_URL's
 * `options=-c name=value`) is unknown (42704) or given a value it does not take (22023).
 */
export function connectionRefusal(
  error: unknown,
): 'no such database' | 'credentials refused' | 'no TLS' | 'options refused' | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  const message = error instanceof Error ? error.message : '';
  if (code === '3D000') return 'no such database';
  if (typeof code === 'string' && code.length === 5 && code.startsWith('28')) return 'credentials refused';
  if (message === NO_TLS_MESSAGE) return 'no TLS';
  if ((code === '42704' || code === '22023') && / parameter "/.test(message)) return 'options refused';
  return undefined;
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
