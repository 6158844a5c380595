export { createMemoryPlantRepository } from './memory-plant-repository.ts';
export { openMemoryPlantStorage } from './memory-plant-storage.ts';
