import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';

describePlantRepositoryContract('PGlite in memory', { open: () => openPglitePlantStorage(), durable: false });
