/**
 * `pnpm webhooks:redeliver`: puts every dead webhook delivery (its last attempt failed) back in the
 * queue with a fresh retry schedule, for the service to deliver. Reads DATABASE_URL as the service
 * does. PostgreSQL: run it any time, from anywhere that reaches the database. Embedded (pglite:):
 * stop the service first, PGlite's folder is for one process at a time (the folder's lock refuses).
 */
import {
  DEFAULT_DATABASE_URL,
  isDatabaseUrlProblem,
  type OpenedStorage,
  openStorage,
  parseDatabaseUrl,
  StorageInUseError,
} from './storage-adapters.ts';

async function redeliver(databaseUrl: string): Promise<string> {
  const database = parseDatabaseUrl(databaseUrl);
  if (isDatabaseUrlProblem(database)) throw new Error(`DATABASE_URL ${database.problem}`);
  // Opened as the service opens it: the store's schema is where the queue's is derived from.
  const opened: OpenedStorage = await openStorage(database, {
    groupCommit: true,
    preparedStatements: true,
    events: false,
  }).catch((error: unknown) => {
    if (!(error instanceof StorageInUseError)) throw error;
    throw new Error(`${error.held}: stop the service, then run this again`, { cause: error });
  });
  try {
    if (opened.webhookQueue === undefined) {
      throw new Error(
        'with memory: storage, dead deliveries live in the service process only: nothing to redeliver here',
      );
    }
    const moved = await opened.webhookQueue.redeliverDead();
    // A folder this process could open has no service running on it.
    const who = opened.exclusive
      ? 'the service delivers them once started'
      : 'the running service delivers them';
    return `${moved} dead webhook deliveries queued again; ${who}`;
  } finally {
    await opened.storage.close();
  }
}

try {
  process.stdout.write(`${await redeliver(process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL)}\n`);
} catch (error) {
  process.stderr.write(`webhooks:redeliver: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
