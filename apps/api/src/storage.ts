import type { PlantStorage } from '@plant-store/domain';
import type { DatabaseConfig } from './config.ts';

/**
 * The composition root of storage: one line per adapter. Each is imported only when chosen, so a
 * memory run never loads the PostgreSQL drivers. Opening a PostgreSQL store runs its migrations.
 */
export async function openStorage(
  database: DatabaseConfig,
  options: { readonly groupCommit: boolean },
): Promise<PlantStorage> {
  // Off: one INSERT per create. On: the adapter's defaults.
  const groupCommit = options.groupCommit ? {} : { groupCommit: false as const };
  switch (database.kind) {
    case 'postgres':
      return (await import('@plant-store/storage-postgres')).openPostgresPlantStorage({
        connectionString: database.connectionString,
        ...groupCommit,
      });
    case 'pglite':
      return (await import('@plant-store/storage-postgres')).openPglitePlantStorage({
        dataDir: database.dataDir,
        ...groupCommit,
      });
    case 'memory':
      return (await import('@plant-store/storage-memory')).openMemoryPlantStorage();
  }
}
