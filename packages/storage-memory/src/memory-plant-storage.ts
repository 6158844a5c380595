import { type PlantRepository, type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { createMemoryPlantRepository } from './memory-plant-repository.ts';

/**
 * A PlantStorage in memory. Once closed it answers like any closed storage, with
 * StorageUnavailableError, so callers see the same life cycle whichever adapter they run on.
 */
export function openMemoryPlantStorage(): PlantStorage {
  const repository = createMemoryPlantRepository();
  let closed = false;

  const ensureOpen = (): void => {
    if (closed) throw new StorageUnavailableError('the in-memory plant storage is closed');
  };

  const plants: PlantRepository = {
    async insertIfAbsent(plant) {
      ensureOpen();
      return repository.insertIfAbsent(plant);
    },
    async findById(id) {
      ensureOpen();
      return repository.findById(id);
    },
    async listAfter(after, limit) {
      ensureOpen();
      return repository.listAfter(after, limit);
    },
    async deleteById(id) {
      ensureOpen();
      return repository.deleteById(id);
    },
  };

  return {
    plants,
    async checkReady() {
      ensureOpen();
    },
    async close() {
      closed = true;
    },
  };
}
