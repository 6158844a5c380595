import { describe, expect, it } from 'vitest';
import { type DeletePlantDeps, deletePlant } from './delete-plant.ts';
import {
  InvalidParameterError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StorageUnavailableError,
} from './errors.ts';
import { INT64_MAX, type NewPlant, type Plant } from './plant.ts';
import type { ExpectedContent } from './plant-repository.port.ts';

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

/** Plants in a Map, each call one step; `beforeDelete` runs inside a delete's step: another writer's turn. */
function storedPlants(...plants: NewPlant[]) {
  const stored = new Map(plants.map((plant) => [plant.id, plant]));
  const asked: string[] = [];
  const repository = {
    stored,
    asked,
    beforeDelete: (): void => {},
    async findById(id: bigint) {
      asked.push('findById');
      return stored.get(id);
    },
    async deleteById(id: bigint, expected?: ExpectedContent) {
      asked.push(expected === undefined ? 'deleteById' : `deleteById if ${JSON.stringify(expected)}`);
      repository.beforeDelete();
      const current = stored.get(id);
      if (current === undefined) return false;
      if (expected !== undefined && expected !== 'any') {
        if (current.name !== expected.name || current.tag !== expected.tag) return false;
      }
      return stored.delete(id);
    },
  };
  return repository;
}

describe('deletePlant with a precondition (ifMatch)', () => {
  const fern = { id: 7n, name: 'Fern', tag: '' };
  const isFern = (plant: Plant): boolean => plant.name === 'Fern';

  it("when ifMatch is 'any' and a plant is stored, then it is deleted with one call", async () => {
    const plants = storedIds(7n);
    await expect(deletePlant({ plants }, 7n, { ifMatch: 'any' })).resolves.toBeUndefined();
    expect([...plants.stored]).toEqual([]);
    expect(plants.asked).toBe(1);
  });

  it("when ifMatch is 'any' and no plant is stored, then it throws PlantPreconditionFailedError", async () => {
    const attempt = deletePlant({ plants: storedIds() }, 7n, { ifMatch: 'any' });
    await expect(attempt).rejects.toBeInstanceOf(PlantPreconditionFailedError);
    await expect(attempt).rejects.toMatchObject({ id: 7n });
  });

  it('when the test holds for the stored content, then the store is asked to delete exactly that content', async () => {
    const plants = storedPlants(fern);
    await expect(deletePlant({ plants }, 7n, { ifMatch: isFern })).resolves.toBeUndefined();
    expect(plants.stored.size).toBe(0);
    expect(plants.asked).toEqual(['findById', 'deleteById if {"name":"Fern","tag":""}']);
  });

  it('when the test fails, or no plant is stored, then it throws PlantPreconditionFailedError and deletes nothing', async () => {
    const plants = storedPlants(fern);
    await expect(deletePlant({ plants }, 7n, { ifMatch: () => false })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    await expect(deletePlant({ plants }, 8n, { ifMatch: () => true })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    expect(plants.stored.get(7n)).toStrictEqual(fern);
    expect(plants.asked).toEqual(['findById', 'findById']);
  });

  it('when another writer changes the plant between the read and the delete, then the new content is tested again', async () => {
    const plants = storedPlants(fern);
    let turns = 0;
    plants.beforeDelete = () => {
      turns += 1;
      if (turns === 1) plants.stored.set(7n, { id: 7n, name: 'Fern', tag: 'x' });
      if (turns === 3) plants.stored.set(7n, { id: 7n, name: 'Ivy' });
    };
    await expect(deletePlant({ plants }, 7n, { ifMatch: isFern })).resolves.toBeUndefined();
    expect(plants.stored.size).toBe(0);

    // Changed to content the test refuses: nothing is deleted.
    plants.stored.set(7n, fern);
    await expect(deletePlant({ plants }, 7n, { ifMatch: isFern })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, name: 'Ivy' });
  });
});
