export { DataFolderUnusableError } from './data-folder.ts';
export { type DataFolderHolder, DataFolderInUseError } from './data-folder-lock.ts';
export { DatabaseEncodingError } from './database-encoding.ts';
export { migrateToLatest, type SchemaRefusal, SchemaRefusedError } from './migrate.ts';
export {
  openPglitePlantStorage,
  type PglitePlantStorage,
  type PglitePlantStorageOptions,
} from './open-pglite-plant-storage.ts';
export {
  type ConnectionPoolStats,
  openPostgresPlantStorage,
  type PostgresPlantStorage,
  type PostgresPlantStorageOptions,
} from './open-postgres-plant-storage.ts';
export type { PlantDatabase } from './plant-database.ts';
export { createPostgresPlantRepository } from './postgres-plant-repository.ts';
export type { SqlPlantStorage } from './sql-plant-storage.ts';
export { connectionRefusal } from './storage-errors.ts';
