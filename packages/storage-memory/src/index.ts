export { createMemoryPlantRepository } from './memory-plant-repository.ts';
export { type MemoryPlantStorageOptions, openMemoryPlantStorage } from './memory-plant-storage.ts';
