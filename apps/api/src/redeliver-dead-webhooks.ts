/**
 * `pnpm webhooks:redeliver`: puts every dead webhook delivery (its last attempt failed) back in the
 * queue with a fresh retry schedule, for the service to deliver. Reads DATABASE_URL as the service
 * does. PostgreSQL: run it any time, from anywhere that reaches the database. Embedded (pglite:):
 * stop the service first, PGlite's folder is for one process at a time (the folder's lock refuses).
 */
import { DEFAULT_DATABASE_URL, parseDatabaseUrl } from './storage-adapters.ts';

async function redeliver(databaseUrl: string): Promise<string> {
  const database = parseDatabaseUrl(databaseUrl);
  if ('problem' in database) throw new Error(`DATABASE_URL ${database.problem}`);
  const { redeliverDeadWebhooks } = await import('@plant-store/webhooks/pg-boss');
  switch (database.kind) {
    case 'memory':
      throw new Error(
        'with memory: storage, dead deliveries live in the service process only: nothing to redeliver here',
      );
    case 'postgres': {
      // Opened as the service opens it: the store's schema is where the queue's is derived from.
      const { openPostgresPlantStorage } = await import('@plant-store/storage-postgres');
      const storage = await openPostgresPlantStorage({
        connectionString: database.connectionString,
        poolSize: 1,
      });
      try {
        const moved = await redeliverDeadWebhooks(
          { kind: 'postgres', connectionString: database.connectionString },
          storage.schema,
        );
        return `${moved} dead webhook deliveries queued again; the running service delivers them`;
      } finally {
        await storage.close();
      }
    }
    case 'pglite': {
      const { DataFolderInUseError, openPglitePlantStorage } = await import('@plant-store/storage-postgres');
      const storage = await openPglitePlantStorage({ dataDir: database.dataDir }).catch((error: unknown) => {
        if (!(error instanceof DataFolderInUseError)) throw error;
        throw new Error(`${error.message}: stop the service, then run this again`, { cause: error });
      });
      try {
        const moved = await redeliverDeadWebhooks({ kind: 'pglite', pglite: storage.pglite }, storage.schema);
        return `${moved} dead webhook deliveries queued again; the service delivers them once started`;
      } finally {
        await storage.close();
      }
    }
  }
}

try {
  process.stdout.write(`${await redeliver(process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL)}\n`);
} catch (error) {
  process.stderr.write(`webhooks:redeliver: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
