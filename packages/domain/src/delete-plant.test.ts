import { describe, expect, it } from 'vitest';
import { type DeletePlantDeps, deletePlant } from './delete-plant.ts';
import { InvalidParameterError, PlantNotFoundError, StorageUnavailableError } from './errors.ts';
import { INT64_MAX } from './plant.ts';

function storedIds(
  ...ids: bigint[]
): DeletePlantDeps['plants'] & { readonly stored: Set<bigint>; asked: number } {
  const stored = new Set(ids);
  return {
    stored,
    asked: 0,
    async deleteById(id) {
      this.asked += 1;
      return stored.delete(id);
    },
  };
}

describe('deletePlant', () => {
  it('when a plant is stored under the id, then it is deleted and the others stay', async () => {
    const plants = storedIds(1n, 2n ** 53n + 1n, 2n ** 53n);
    await expect(deletePlant({ plants }, 2n ** 53n + 1n)).resolves.toBeUndefined();
    expect([...plants.stored]).toEqual([1n, 2n ** 53n]);
  });

  it('when nothing is stored under the id, then it throws PlantNotFoundError with the id', async () => {
    const attempt = deletePlant({ plants: storedIds(1n) }, INT64_MAX);
    await expect(attempt).rejects.toBeInstanceOf(PlantNotFoundError);
    await expect(attempt).rejects.toMatchObject({ id: INT64_MAX });
  });

  it('when the same id is deleted twice, then the second time it is not found', async () => {
    const plants = storedIds(-1n);
    await deletePlant({ plants }, -1n);
    await expect(deletePlant({ plants }, -1n)).rejects.toBeInstanceOf(PlantNotFoundError);
  });

  it('when the id is outside int64, then it throws InvalidParameterError and storage is never asked', async () => {
    const plants = storedIds();
    await expect(deletePlant({ plants }, INT64_MAX + 1n)).rejects.toBeInstanceOf(InvalidParameterError);
    expect(plants.asked).toBe(0);
  });

  it('when storage is unavailable, then its error reaches the caller unchanged', async () => {
    const outage = new StorageUnavailableError('database unreachable');
    await expect(deletePlant({ plants: { deleteById: () => Promise.reject(outage) } }, 1n)).rejects.toBe(
      outage,
    );
  });
});
