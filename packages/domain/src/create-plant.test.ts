import { describe, expect, it } from 'vitest';
import { type CreatePlantDeps, createPlant } from './create-plant.ts';
import { InvalidPlantError, PlantConflictError, StorageUnavailableError } from './errors.ts';
import type { NewPlant } from './plant.ts';
import type { InsertOutcome } from './plant-repository.port.ts';

/** The simplest faithful repository: a Map, with a record of every insert it was asked for. */
function mapRepository(): CreatePlantDeps['plants'] & {
  readonly stored: Map<bigint, NewPlant>;
  inserts: number;
} {
  const stored = new Map<bigint, NewPlant>();
  return {
    stored,
    inserts: 0,
    async insertIfAbsent(plant): Promise<InsertOutcome> {
      this.inserts += 1;
      const existing = stored.get(plant.id);
      if (existing) return { inserted: false, existing };
      stored.set(plant.id, plant);
      return { inserted: true };
    },
  };
}

describe('createPlant', () => {
  it('when the plant is new, then it is stored and answered without its id', async () => {
    const plants = mapRepository();
    const result = await createPlant({ plants }, { id: 9007199254740993n, name: 'Monstera', tag: 'aroid' });
    expect(result).toEqual({ plant: { name: 'Monstera', tag: 'aroid' }, created: true });
    expect(plants.stored.get(9007199254740993n)).toEqual({
      id: 9007199254740993n,
      name: 'Monstera',
      tag: 'aroid',
    });
  });

  it('when the tag is absent, then the answer has no tag key', async () => {
    const result = await createPlant({ plants: mapRepository() }, { id: 1n, name: 'Fern' });
    expect(Object.keys(result.plant)).toEqual(['name']);
  });

  it('when the same id is sent again with the same content, then it answers the plant and stores nothing new', async () => {
    const plants = mapRepository();
    await createPlant({ plants }, { id: 1n, name: 'Fern', tag: '' });
    const retry = await createPlant({ plants }, { id: 1n, name: 'Fern', tag: '' });
    expect(retry).toEqual({ plant: { name: 'Fern', tag: '' }, created: false });
    expect([...plants.stored.values()]).toEqual([{ id: 1n, name: 'Fern', tag: '' }]);
  });

  it.each([
    ['another name', { id: 1n, name: 'Palm', tag: 'a' }],
    ['another tag', { id: 1n, name: 'Fern', tag: 'b' }],
    ['an empty tag instead of the tag', { id: 1n, name: 'Fern', tag: '' }],
    ['no tag instead of the tag', { id: 1n, name: 'Fern' }],
  ])(
    'when the same id is sent with %s, then it is a conflict and the stored plant is unchanged',
    async (_, input) => {
      const plants = mapRepository();
      await createPlant({ plants }, { id: 1n, name: 'Fern', tag: 'a' });
      const attempt = createPlant({ plants }, input);
      await expect(attempt).rejects.toBeInstanceOf(PlantConflictError);
      await expect(attempt).rejects.toMatchObject({ id: 1n });
      expect(plants.stored.get(1n)).toEqual({ id: 1n, name: 'Fern', tag: 'a' });
    },
  );

  it('when an empty tag was stored and the retry has no tag, then it is a conflict', async () => {
    const plants = mapRepository();
    await createPlant({ plants }, { id: 1n, name: 'Fern', tag: '' });
    await expect(createPlant({ plants }, { id: 1n, name: 'Fern' })).rejects.toBeInstanceOf(
      PlantConflictError,
    );
  });

  it('when a create is retried after the plant was changed, then it is compared with the content now stored: equal is a retry, else a conflict', async () => {
    const plants = mapRepository();
    await createPlant({ plants }, { id: 1n, name: 'Fern', tag: 'a' });
    // A change (PUT or PATCH) stores other content under the id.
    plants.stored.set(1n, { id: 1n, name: 'Palm' });
    await expect(createPlant({ plants }, { id: 1n, name: 'Fern', tag: 'a' })).rejects.toBeInstanceOf(
      PlantConflictError,
    );
    await expect(createPlant({ plants }, { id: 1n, name: 'Palm' })).resolves.toStrictEqual({
      plant: { name: 'Palm' },
      created: false,
    });
    expect(plants.stored.get(1n)).toStrictEqual({ id: 1n, name: 'Palm' });
  });

  it('when the input is invalid, then the repository is never asked', async () => {
    const plants = mapRepository();
    await expect(createPlant({ plants }, { id: 1.5, name: 'Fern' })).rejects.toBeInstanceOf(
      InvalidPlantError,
    );
    expect(plants.inserts).toBe(0);
  });

  it('when storage is unavailable, then its error reaches the caller unchanged', async () => {
    const outage = new StorageUnavailableError('database unreachable');
    const plants: CreatePlantDeps['plants'] = { insertIfAbsent: () => Promise.reject(outage) };
    await expect(createPlant({ plants }, { id: 1n, name: 'Fern' })).rejects.toBe(outage);
  });
});
