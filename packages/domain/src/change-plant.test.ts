import { describe, expect, it } from 'vitest';
import { type ChangePlantDeps, patchPlant, replacePlant } from './change-plant.ts';
import {
  InvalidParameterError,
  InvalidPlantError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StorageUnavailableError,
} from './errors.ts';
import { INT64_MAX, type NewPlant, newPlant, type Plant } from './plant.ts';
import { MAX_CONDITIONAL_ROUNDS } from './plant-precondition.ts';
import type { ExpectedContent, PlantChange, UpdateOutcome } from './plant-repository.port.ts';

const sameContent = (plant: NewPlant, expected: Plant): boolean =>
  plant.name === expected.name && plant.tag === expected.tag;

/**
 * The simplest faithful repository for a change: a Map, each call one step, recording what it was
 * asked. `beforeUpdate` runs inside an update's step, before its comparison: another writer's turn.
 */
function mapRepository(...plants: NewPlant[]) {
  const stored = new Map(plants.map((plant) => [plant.id, plant]));
  const asked: string[] = [];
  let beforeUpdate = (_id: bigint): void => {};
  const repository = {
    stored,
    asked,
    set beforeUpdate(hook: (id: bigint) => void) {
      beforeUpdate = hook;
    },
    async findById(id: bigint) {
      asked.push('findById');
      return stored.get(id);
    },
    async update(id: bigint, change: PlantChange, expected?: ExpectedContent): Promise<UpdateOutcome> {
      asked.push(expected === undefined ? 'update' : `update if ${JSON.stringify(expected)}`);
      beforeUpdate(id);
      const current = stored.get(id);
      if (current === undefined) return { outcome: 'absent' };
      if (expected !== undefined && expected !== 'any' && !sameContent(current, expected))
        return { outcome: 'precondition-failed', current };
      const tag = change.tag === undefined ? current.tag : (change.tag ?? undefined);
      const plant = newPlant(id, change.name ?? current.name, tag);
      stored.set(id, plant);
      return { outcome: 'updated', plant };
    },
  };
  return repository satisfies ChangePlantDeps['plants'];
}

function problemsOf(error: unknown): string[] {
  expect(error).toBeInstanceOf(InvalidPlantError);
  return (error as InvalidPlantError).issues.map(({ field, problem }) => `${field}: ${problem}`);
}

const refusal = (attempt: Promise<unknown>): Promise<unknown> =>
  attempt.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error,
  );

describe('replacePlant', () => {
  it('when the plant is stored, then it takes the new name and tag and answers the plant as stored', async () => {
    const plants = mapRepository({ id: 7n, name: 'Fern', tag: 'old' });
    await expect(replacePlant({ plants }, 7n, { name: 'Palm', tag: '' })).resolves.toStrictEqual({
      name: 'Palm',
      tag: '',
    });
    expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, name: 'Palm', tag: '' });
  });

  it('when the body has no tag, then the stored tag is removed: a replacement, not a merge', async () => {
    const plants = mapRepository({ id: 7n, name: 'Fern', tag: 'aroid' });
    const answer = await replacePlant({ plants }, 7n, { name: 'Fern' });
    expect(answer).toStrictEqual({ name: 'Fern' });
    expect(Object.keys(answer)).toEqual(['name']);
    expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, name: 'Fern' });
  });

  it('when the same replacement comes again, then it answers the same plant and changes nothing more', async () => {
    const plants = mapRepository({ id: 7n, name: 'Fern' });
    const body = { name: 'Palm', tag: 'x' };
    const first = await replacePlant({ plants }, 7n, body);
    await expect(replacePlant({ plants }, 7n, body)).resolves.toStrictEqual(first);
    expect([...plants.stored.values()]).toStrictEqual([{ id: 7n, name: 'Palm', tag: 'x' }]);
  });

  it('when the body carries the id of the path, then it is accepted; unknown members are ignored', async () => {
    const id = 2n ** 53n + 1n;
    const plants = mapRepository({ id, name: 'Fern' });
    await expect(
      replacePlant({ plants }, id, { id, name: 'Palm', colour: 'green', tag: 'x' }),
    ).resolves.toStrictEqual({ name: 'Palm', tag: 'x' });
  });

  it.each([
    ['another id', { id: 8n, name: 'Palm' }, ['id: must be the id of the plant it changes, 7, or left out']],
    [
      'an id beyond int64',
      { id: INT64_MAX + 1n, name: 'Palm' },
      ['id: must be an integer between -9223372036854775808 and 9223372036854775807'],
    ],
    ['an id as a string', { id: '7', name: 'Palm' }, ['id: must be an integer, not a string']],
    ['no name', { tag: 'x' }, ['name: is required']],
    ['a null name', { name: null }, ['name: must be a string, not null']],
    ['a null tag', { name: 'Palm', tag: null }, ['tag: must be a string, not null']],
    ['a NUL in the name', { name: 'Pa\0lm' }, ['name: must not contain the NUL character (U+0000)']],
    [
      'a lone surrogate in the tag',
      { name: 'Palm', tag: '\ud800' },
      ['tag: must be well-formed Unicode (it contains a lone surrogate)'],
    ],
    ['an array', [{ name: 'Palm' }], [': must be a JSON object, not an array']],
    ['null', null, [': must be a JSON object, not null']],
    [
      'another id and a bad name',
      { id: 8n, name: 5 },
      ['id: must be the id of the plant it changes, 7, or left out', 'name: must be a string, not a number'],
    ],
  ])(
    'when the body has %s, then it throws InvalidPlantError naming each bad member, and storage is never asked',
    async (_, body, problems) => {
      const plants = mapRepository({ id: 7n, name: 'Fern' });
      expect(problemsOf(await refusal(replacePlant({ plants }, 7n, body)))).toEqual(problems);
      expect(plants.asked).toEqual([]);
      expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, name: 'Fern' });
    },
  );

  it('when the path id is outside int64, then it throws InvalidParameterError and storage is never asked', async () => {
    const plants = mapRepository();
    await expect(replacePlant({ plants }, INT64_MAX + 1n, { name: 'Palm' })).rejects.toBeInstanceOf(
      InvalidParameterError,
    );
    expect(plants.asked).toEqual([]);
  });

  it('when no plant is stored under the id, then it throws PlantNotFoundError and creates nothing', async () => {
    const plants = mapRepository();
    const attempt = replacePlant({ plants }, 7n, { name: 'Palm' });
    await expect(attempt).rejects.toBeInstanceOf(PlantNotFoundError);
    await expect(attempt).rejects.toMatchObject({ id: 7n });
    expect(plants.stored.size).toBe(0);
  });

  it('when storage is unavailable, then its error reaches the caller unchanged', async () => {
    const outage = new StorageUnavailableError('database unreachable');
    const plants = { ...mapRepository(), update: () => Promise.reject(outage) };
    await expect(replacePlant({ plants }, 7n, { name: 'Palm' })).rejects.toBe(outage);
  });
});

describe('patchPlant', () => {
  it.each([
    ['a name', { name: 'Palm' }, { name: 'Palm', tag: 'aroid' }],
    ['a tag', { tag: 'fern' }, { name: 'Fern', tag: 'fern' }],
    ["an empty tag ''", { tag: '' }, { name: 'Fern', tag: '' }],
    ['a null tag: removes it', { tag: null }, { name: 'Fern' }],
    ['both', { name: 'Palm', tag: null }, { name: 'Palm' }],
    ['nothing', {}, { name: 'Fern', tag: 'aroid' }],
    ['only unknown members', { colour: 'green', name2: null }, { name: 'Fern', tag: 'aroid' }],
    ['the id of the path', { id: 7n, tag: 'x' }, { name: 'Fern', tag: 'x' }],
  ])(
    'when the patch has %s, then members left out stay and it answers the plant as stored',
    async (_, patch, plant) => {
      const plants = mapRepository({ id: 7n, name: 'Fern', tag: 'aroid' });
      await expect(patchPlant({ plants }, 7n, patch)).resolves.toStrictEqual(plant);
      expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, ...plant });
    },
  );

  it('when the patch names only the tag, then the store is asked to change only the tag (so a concurrent rename survives)', async () => {
    const plants = mapRepository({ id: 7n, name: 'Fern' });
    // Another writer renames the plant between the patch's start and its step.
    plants.beforeUpdate = () => plants.stored.set(7n, { id: 7n, name: 'Renamed' });
    await expect(patchPlant({ plants }, 7n, { tag: 'x' })).resolves.toStrictEqual({
      name: 'Renamed',
      tag: 'x',
    });
  });

  it.each([
    ['a null name', { name: null }, ['name: must be a string, not null']],
    ['a name of another type', { name: 5 }, ['name: must be a string, not a number']],
    ['a tag of another type', { tag: true }, ['tag: must be a string, or null to remove it, not a boolean']],
    ['a NUL in the tag', { tag: '\0' }, ['tag: must not contain the NUL character (U+0000)']],
    [
      'a lone surrogate in the name',
      { name: 'a\udc00' },
      ['name: must be well-formed Unicode (it contains a lone surrogate)'],
    ],
    ['another id', { id: -7n }, ['id: must be the id of the plant it changes, 7, or left out']],
    ['a null id', { id: null }, ['id: must be an integer, not null']],
    ['an array', [], [': must be a JSON object, not an array']],
    ['a string', 'name', [': must be a JSON object, not a string']],
    ['null', null, [': must be a JSON object, not null']],
  ])(
    'when the patch has %s, then it throws InvalidPlantError naming it, and storage is never asked',
    async (_, patch, problems) => {
      const plants = mapRepository({ id: 7n, name: 'Fern' });
      expect(problemsOf(await refusal(patchPlant({ plants }, 7n, patch)))).toEqual(problems);
      expect(plants.asked).toEqual([]);
    },
  );

  it('when no plant is stored under the id, then it throws PlantNotFoundError and creates nothing', async () => {
    const plants = mapRepository();
    await expect(patchPlant({ plants }, 7n, { name: 'Palm' })).rejects.toBeInstanceOf(PlantNotFoundError);
    expect(plants.stored.size).toBe(0);
  });
});

describe('a change with a precondition (ifMatch)', () => {
  const fern = { id: 7n, name: 'Fern', tag: 'aroid' };
  const isFern = (plant: Plant): boolean => plant.name === 'Fern';

  it("when ifMatch is 'any' and a plant is stored, then it is changed in one conditional step", async () => {
    const plants = mapRepository(fern);
    await expect(patchPlant({ plants }, 7n, { tag: null }, { ifMatch: 'any' })).resolves.toStrictEqual({
      name: 'Fern',
    });
    expect(plants.asked).toEqual(['update if "any"']);
  });

  it("when ifMatch is 'any' and no plant is stored, then it throws PlantPreconditionFailedError, not PlantNotFoundError", async () => {
    const plants = mapRepository();
    const attempt = replacePlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: 'any' });
    await expect(attempt).rejects.toBeInstanceOf(PlantPreconditionFailedError);
    await expect(attempt).rejects.toMatchObject({ id: 7n });
    expect(plants.stored.size).toBe(0);
  });

  it('when the test holds for the stored content, then the store is asked to change exactly that content', async () => {
    const plants = mapRepository(fern);
    const tested: Plant[] = [];
    const ifMatch = (plant: Plant) => {
      tested.push(plant);
      return true;
    };
    await expect(replacePlant({ plants }, 7n, { name: 'Palm' }, { ifMatch })).resolves.toStrictEqual({
      name: 'Palm',
    });
    // The test sees the content only, as a client's validator was made from it.
    expect(tested).toStrictEqual([{ name: 'Fern', tag: 'aroid' }]);
    expect(plants.asked).toEqual(['findById', 'update if {"name":"Fern","tag":"aroid"}']);
  });

  it('when the test fails, then it throws PlantPreconditionFailedError and nothing changes', async () => {
    const plants = mapRepository(fern);
    await expect(
      patchPlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: () => false }),
    ).rejects.toBeInstanceOf(PlantPreconditionFailedError);
    expect(plants.stored.get(7n)).toStrictEqual(fern);
    expect(plants.asked).toEqual(['findById']);
  });

  it('when a test is given and no plant is stored, then it throws PlantPreconditionFailedError without testing', async () => {
    const plants = mapRepository();
    await expect(
      replacePlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: () => true }),
    ).rejects.toBeInstanceOf(PlantPreconditionFailedError);
  });

  it('when another writer changes the plant between the read and the write to content the test still accepts, then the change is made on that content', async () => {
    const plants = mapRepository(fern);
    let turns = 0;
    plants.beforeUpdate = () => {
      if (turns++ === 0) plants.stored.set(7n, { id: 7n, name: 'Fern', tag: 'other' });
    };
    await expect(patchPlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: isFern })).resolves.toStrictEqual({
      name: 'Palm',
      tag: 'other',
    });
    expect(plants.asked).toEqual([
      'findById',
      'update if {"name":"Fern","tag":"aroid"}',
      'update if {"name":"Fern","tag":"other"}',
    ]);
  });

  it('when another writer changes the plant between the read and the write to content the test refuses, then it throws PlantPreconditionFailedError and keeps that writer’s change', async () => {
    const plants = mapRepository(fern);
    plants.beforeUpdate = () => plants.stored.set(7n, { id: 7n, name: 'Ivy' });
    await expect(patchPlant({ plants }, 7n, { tag: 'x' }, { ifMatch: isFern })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    expect(plants.stored.get(7n)).toStrictEqual({ id: 7n, name: 'Ivy' });
  });

  it('when another writer deletes the plant between the read and the write, then it throws PlantPreconditionFailedError and creates nothing', async () => {
    const plants = mapRepository(fern);
    plants.beforeUpdate = () => plants.stored.delete(7n);
    await expect(replacePlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: isFern })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    expect(plants.stored.size).toBe(0);
  });

  it('when the plant changes before every write to content the test accepts, then it gives up with PlantPreconditionFailedError after a bounded number of rounds', async () => {
    const plants = mapRepository(fern);
    let round = 0;
    plants.beforeUpdate = () => {
      round += 1;
      plants.stored.set(7n, { id: 7n, name: 'Fern', tag: `${round}` });
    };
    await expect(patchPlant({ plants }, 7n, { name: 'Palm' }, { ifMatch: isFern })).rejects.toBeInstanceOf(
      PlantPreconditionFailedError,
    );
    expect(round).toBe(MAX_CONDITIONAL_ROUNDS);
    expect(plants.stored.get(7n)?.name).toBe('Fern');
  });
});
