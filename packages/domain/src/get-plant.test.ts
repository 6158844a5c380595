import { describe, expect, it } from 'vitest';
import { InvalidParameterError, PlantNotFoundError, StorageUnavailableError } from './errors.ts';
import { type GetPlantDeps, getPlant } from './get-plant.ts';
import { INT64_MAX, INT64_MIN, type NewPlant } from './plant.ts';

function storedPlants(...plants: NewPlant[]): GetPlantDeps['plants'] & { asked: bigint[] } {
  const byId = new Map(plants.map((plant) => [plant.id, plant]));
  const asked: bigint[] = [];
  return {
    asked,
    findById: async (id) => {
      asked.push(id);
      return byId.get(id);
    },
  };
}

describe('getPlant', () => {
  it('when a plant is stored under the id, then it answers the plant without its id', async () => {
    const plants = storedPlants({ id: 9007199254740993n, name: 'Monstera', tag: 'aroid' });
    await expect(getPlant({ plants }, 9007199254740993n)).resolves.toStrictEqual({
      name: 'Monstera',
      tag: 'aroid',
    });
  });

  it('when the stored plant has no tag, then the answer has no tag key; an empty tag stays empty', async () => {
    const plants = storedPlants({ id: 1n, name: 'Fern' }, { id: 2n, name: 'Fern', tag: '' });
    await expect(getPlant({ plants }, 1n)).resolves.toStrictEqual({ name: 'Fern' });
    await expect(getPlant({ plants }, 2n)).resolves.toStrictEqual({ name: 'Fern', tag: '' });
  });

  it('when nothing is stored under the id, then it throws PlantNotFoundError with the id', async () => {
    const attempt = getPlant({ plants: storedPlants() }, INT64_MIN);
    await expect(attempt).rejects.toBeInstanceOf(PlantNotFoundError);
    await expect(attempt).rejects.toMatchObject({
      id: INT64_MIN,
      message: 'there is no plant with id -9223372036854775808',
    });
  });

  it.each([INT64_MAX + 1n, INT64_MIN - 1n])(
    'when the id %s is outside int64, then it throws InvalidParameterError naming id, and storage is never asked',
    async (id) => {
      const plants = storedPlants();
      const attempt = getPlant({ plants }, id);
      await expect(attempt).rejects.toBeInstanceOf(InvalidParameterError);
      await expect(attempt).rejects.toThrow(
        'invalid parameter: id must be an integer between -9223372036854775808 and 9223372036854775807',
      );
      expect(plants.asked).toEqual([]);
    },
  );

  it('when storage is unavailable, then its error reaches the caller unchanged', async () => {
    const outage = new StorageUnavailableError('database unreachable');
    await expect(getPlant({ plants: { findById: () => Promise.reject(outage) } }, 1n)).rejects.toBe(outage);
  });
});
