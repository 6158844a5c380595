import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import { openMemoryPlantStorage } from './memory-plant-storage.ts';

describePlantRepositoryContract('in-memory', {
  open: async (options) => openMemoryPlantStorage(options),
  durable: false,
});
