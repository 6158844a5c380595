import type { PlantRepository } from './plant-repository.port.ts';

/** A PlantRepository together with the life cycle of the storage that holds it. */
export interface PlantStorage {
  readonly plants: PlantRepository;
  /** Resolves when storage answers; rejects with StorageUnavailableError when it does not. */
  checkReady(): Promise<void>;
  /** Releases connections and files. Idempotent. */
  close(): Promise<void>;
  /** How the storage's connection pool is used now, for metrics; absent where there is no pool. */
  connectionPool?(): ConnectionPoolStats;
}

/** A snapshot of a connection pool. */
export interface ConnectionPoolStats {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Operations waiting for a connection. */
  readonly waiting: number;
  /** The most connections the pool opens. */
  readonly max: number;
}
