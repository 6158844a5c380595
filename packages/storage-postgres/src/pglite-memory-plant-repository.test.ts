import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';

describePlantRepositoryContract('PGlite in memory', {
  open: (options) => openPglitePlantStorage(options),
  durable: false,
});

// GROUP_COMMIT=off: one INSERT per create, outside the coalescer; the same contract holds.
describePlantRepositoryContract('PGlite in memory, without group commit', {
  open: (options) => openPglitePlantStorage({ groupCommit: false, ...options }),
  durable: false,
});
