import { createPlant, PlantConflictError } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { describe, expect, it } from 'vitest';
import { afterCreate } from './after-create.ts';

describe('afterCreate', () => {
  it('when a plant is stored for the first time, then it is called once, after the plant can be read; a retry or a conflict calls nothing', async () => {
    const storage = openMemoryPlantStorage();
    const seen: unknown[] = [];
    const plants = afterCreate(storage.plants, () => {
      seen.push(storage.plants.findById(1n));
    });

    await createPlant({ plants }, { id: 1n, name: 'Fern' });
    expect(seen).toHaveLength(1);
    await expect(seen[0]).resolves.toStrictEqual({ id: 1n, name: 'Fern' });

    await createPlant({ plants }, { id: 1n, name: 'Fern' });
    await expect(createPlant({ plants }, { id: 1n, name: 'Palm' })).rejects.toBeInstanceOf(
      PlantConflictError,
    );
    expect(seen).toHaveLength(1);
    await storage.close();
  });

  it('when plants are read, listed and deleted through it, then it answers as the repository it wraps and calls nothing', async () => {
    const storage = openMemoryPlantStorage();
    let calls = 0;
    const plants = afterCreate(storage.plants, () => {
      calls += 1;
    });
    await storage.plants.insertIfAbsent(
      { id: 2n, name: 'Palm', tag: '' },
      { type: 'plant.created', plant: { id: 2n, name: 'Palm', tag: '' } },
    );
    expect(await plants.findById(2n)).toStrictEqual({ id: 2n, name: 'Palm', tag: '' });
    expect(await plants.listAfter(undefined, 10)).toStrictEqual({
      plants: [{ id: 2n, name: 'Palm', tag: '' }],
      more: false,
    });
    expect(await plants.deleteById(2n)).toBe(true);
    expect(await plants.deleteById(2n)).toBe(false);
    expect(calls).toBe(0);
    await storage.close();
  });

  it('when plants are changed, listed by tag and deleted on a condition through it, then every argument reaches the repository and nothing is called', async () => {
    const storage = openMemoryPlantStorage();
    let calls = 0;
    const plants = afterCreate(storage.plants, () => {
      calls += 1;
    });
    await storage.plants.insertIfAbsent({ id: 3n, name: 'Fern', tag: 'a' });
    await storage.plants.insertIfAbsent({ id: 4n, name: 'Ivy', tag: 'b' });
    expect(await plants.update(3n, { tag: 'b' }, { name: 'Fern', tag: 'x' })).toStrictEqual({
      outcome: 'precondition-failed',
      current: { id: 3n, name: 'Fern', tag: 'a' },
    });
    expect(await plants.update(3n, { tag: 'b' }, { name: 'Fern', tag: 'a' })).toStrictEqual({
      outcome: 'updated',
      plant: { id: 3n, name: 'Fern', tag: 'b' },
    });
    expect(await plants.listAfter(undefined, 10, 100, 'a')).toStrictEqual({ plants: [], more: false });
    expect(await plants.listAfter(3n, 10, 100, 'b')).toStrictEqual({
      plants: [{ id: 4n, name: 'Ivy', tag: 'b' }],
      more: false,
    });
    expect(await plants.deleteById(4n, { name: 'Ivy' })).toBe(false);
    expect(await plants.deleteById(4n, { name: 'Ivy', tag: 'b' })).toBe(true);
    expect(calls).toBe(0);
    await storage.close();
  });
});
