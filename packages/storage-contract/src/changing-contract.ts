import {
  createPlant,
  type ExpectedContent,
  type NewPlant,
  newPlant,
  type Plant,
  PlantConflictError,
  type PlantRepository,
  patchPlant,
  replacePlant,
  type UpdateOutcome,
} from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import { expect, it } from 'vitest';
import { checkChangesAgainstModel } from './changing-properties.ts';
import { SAMPLE_STRINGS } from './sample-strings.ts';
import type { Content } from './serial-order.ts';

/** A fresh plant stored under a fresh id. */
async function storedPlant(plants: PlantRepository, name = 'Fern', tag?: string): Promise<NewPlant> {
  const plant = newPlant(randomPlantId(), name, tag);
  await expect(plants.insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
  return plant;
}

const updated = (plant: NewPlant): UpdateOutcome => ({ outcome: 'updated', plant });

/**
 * Changing a stored plant (PlantRepository.update and a conditional deleteById), registered in the
 * caller's describe. Every test changes only plants of its own.
 */
export function describeChangingContract(plants: () => PlantRepository): void {
  it.each([
    ['a name and a tag', { name: 'Palm', tag: 'x' }, { name: 'Palm', tag: 'x' }],
    ["an empty tag ''", { name: 'Fern', tag: '' }, { name: 'Fern', tag: '' }],
    ['no tag (null): the tag is removed', { name: 'Palm', tag: null }, { name: 'Palm' }],
  ])(
    'when a plant is replaced with %s, then it holds exactly that, found as updated',
    async (_, change, content) => {
      const plant = await storedPlant(plants(), 'Fern', 'aroid');
      await expect(plants().update(plant.id, change)).resolves.toStrictEqual(
        updated({ id: plant.id, ...content }),
      );
      const found = await plants().findById(plant.id);
      expect(found).toStrictEqual({ id: plant.id, ...content });
      expect(found && Object.keys(found)).toEqual(Object.keys({ id: plant.id, ...content }));
    },
  );

  it.each([
    ['the name', { name: 'Palm' }, { name: 'Palm', tag: 'aroid' }],
    ['the tag', { tag: 'x' }, { name: 'Fern', tag: 'x' }],
    ["the tag to ''", { tag: '' }, { name: 'Fern', tag: '' }],
    ['the tag away (null)', { tag: null }, { name: 'Fern' }],
    ['nothing', {}, { name: 'Fern', tag: 'aroid' }],
  ])('when a patch changes %s, then members left out stay as stored', async (_, change, content) => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    await expect(plants().update(plant.id, change)).resolves.toStrictEqual(
      updated({ id: plant.id, ...content }),
    );
    await expect(plants().findById(plant.id)).resolves.toStrictEqual({ id: plant.id, ...content });
  });

  it('when a plant without a tag is given one, or its name again, then it holds exactly that', async () => {
    const plant = await storedPlant(plants(), 'Fern');
    await expect(plants().update(plant.id, { tag: '' })).resolves.toStrictEqual(
      updated({ id: plant.id, name: 'Fern', tag: '' }),
    );
    await expect(plants().update(plant.id, { name: 'Fern', tag: null })).resolves.toStrictEqual(
      updated(plant),
    );
    await expect(plants().findById(plant.id)).resolves.toStrictEqual(plant);
  });

  it.each(SAMPLE_STRINGS)(
    'when a plant is changed to a name and tag of %s, then they round-trip exactly',
    async (_, text) => {
      const plant = await storedPlant(plants(), 'Fern', 'aroid');
      const changed = { id: plant.id, name: text, tag: text };
      await expect(plants().update(plant.id, { name: text, tag: text })).resolves.toStrictEqual(
        updated(changed),
      );
      await expect(plants().findById(plant.id)).resolves.toStrictEqual(changed);
      // And as a conditional write's expected content, compared exactly.
      await expect(
        plants().update(plant.id, { name: 'back' }, { name: text, tag: text }),
      ).resolves.toStrictEqual(updated({ ...changed, name: 'back' }));
    },
  );

  it.each<[string, ExpectedContent | undefined]>([
    ['no expected content', undefined],
    ["'any' content", 'any'],
    ['an expected content', { name: 'Fern' }],
  ])(
    'when no plant is stored under the id, then an update with %s answers absent and creates nothing',
    async (_, expected) => {
      const id = randomPlantId();
      await expect(plants().update(id, { name: 'Palm', tag: 'x' }, expected)).resolves.toStrictEqual({
        outcome: 'absent',
      });
      await expect(plants().findById(id)).resolves.toBeUndefined();
      await expect(plants().deleteById(id, expected)).resolves.toBe(false);
    },
  );

  it('when a plant is deleted, then an update of it answers absent and does not bring it back', async () => {
    const plant = await storedPlant(plants());
    await plants().deleteById(plant.id);
    await expect(plants().update(plant.id, { name: 'Palm' })).resolves.toStrictEqual({ outcome: 'absent' });
    await expect(plants().findById(plant.id)).resolves.toBeUndefined();
  });

  it.each<[string, ExpectedContent]>([
    ['exactly its content', { name: 'Fern', tag: '' }],
    ["'any' content", 'any'],
  ])('when an update expects %s, then it changes the plant', async (_, expected) => {
    const plant = await storedPlant(plants(), 'Fern', '');
    await expect(plants().update(plant.id, { tag: 'x' }, expected)).resolves.toStrictEqual(
      updated({ ...plant, tag: 'x' }),
    );
  });

  it.each<[string, Content, Plant]>([
    ['another name', { name: 'Fern', tag: '' }, { name: 'Palm', tag: '' }],
    ['no tag where the tag is empty', { name: 'Fern', tag: '' }, { name: 'Fern' }],
    ['an empty tag where there is none', { name: 'Fern' }, { name: 'Fern', tag: '' }],
    ['the tag "NULL" where there is none', { name: 'Fern' }, { name: 'Fern', tag: 'NULL' }],
    ['another tag', { name: 'Fern', tag: 'x' }, { name: 'Fern', tag: 'y' }],
    ['the name in another Unicode normalisation', { name: 'Caf\u00e9' }, { name: 'Cafe\u0301' }],
    ['the name without its leading U+FEFF', { name: '\ufeffFern' }, { name: 'Fern' }],
  ])(
    'when an update or a delete expects %s, then it answers precondition-failed (false) with the plant stored, and changes nothing',
    async (_, content, expected) => {
      const plant = await storedPlant(plants(), content.name, content.tag);
      await expect(plants().update(plant.id, { name: 'Changed' }, expected)).resolves.toStrictEqual({
        outcome: 'precondition-failed',
        current: plant,
      });
      await expect(plants().deleteById(plant.id, expected)).resolves.toBe(false);
      await expect(plants().findById(plant.id)).resolves.toStrictEqual(plant);
    },
  );

  it('when 20 writers expecting the same content change one plant at once, then exactly one updates it and the others are told what it stored', async () => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    const expected = { name: 'Fern', tag: 'aroid' };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        plants().update(plant.id, { name: `writer ${i}`, tag: `${i}` }, expected),
      ),
    );
    const winners = outcomes.flatMap((outcome) => (outcome.outcome === 'updated' ? [outcome.plant] : []));
    expect(winners).toHaveLength(1);
    const [winner] = winners;
    for (const outcome of outcomes) {
      if (outcome.outcome !== 'updated')
        expect(outcome).toStrictEqual({ outcome: 'precondition-failed', current: winner });
    }
    await expect(plants().findById(plant.id)).resolves.toStrictEqual(winner);
  });

  it('when 20 writers patch one plant at once without a precondition, then no patch of the name undoes one of the tag, nor the other way', async () => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    const names = Array.from({ length: 10 }, (_, i) => `name ${i}`);
    const tags = Array.from({ length: 10 }, (_, i) => `tag ${i}`);
    const outcomes = await Promise.all(
      names.flatMap((name, i) => [
        plants().update(plant.id, { name }),
        plants().update(plant.id, { tag: tags[i] as string }),
      ]),
    );
    expect(outcomes.every((outcome) => outcome.outcome === 'updated')).toBe(true);
    const found = await plants().findById(plant.id);
    expect(names).toContain(found?.name);
    expect(tags).toContain(found?.tag);
  });

  it('when pairs of patches of the name and of the tag of many plants race, then each plant ends with both', async () => {
    const stored = await Promise.all(
      Array.from({ length: 20 }, () => storedPlant(plants(), 'Fern', 'aroid')),
    );
    await Promise.all(
      stored.flatMap((plant) => [
        plants().update(plant.id, { name: 'Palm' }),
        plants().update(plant.id, { tag: null }),
      ]),
    );
    const found = await Promise.all(stored.map((plant) => plants().findById(plant.id)));
    expect(found).toStrictEqual(stored.map((plant) => ({ id: plant.id, name: 'Palm' })));
  });

  it('when a conditional delete expects the stored content, or any, then it deletes the plant', async () => {
    const first = await storedPlant(plants(), 'Fern', '');
    await expect(plants().deleteById(first.id, { name: 'Fern', tag: '' })).resolves.toBe(true);
    await expect(plants().findById(first.id)).resolves.toBeUndefined();
    const second = await storedPlant(plants(), 'Fern');
    await expect(plants().deleteById(second.id, 'any')).resolves.toBe(true);
    await expect(plants().findById(second.id)).resolves.toBeUndefined();
  });

  it('when 20 conditional deletes and updates expecting the same content race, then exactly one of them wins', async () => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    const expected = { name: 'Fern', tag: 'aroid' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? plants().deleteById(plant.id, expected)
          : plants()
              .update(plant.id, { name: `writer ${i}` }, expected)
              .then((outcome) => outcome.outcome === 'updated'),
      ),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    const winner = answers.indexOf(true);
    const found = await plants().findById(plant.id);
    expect(found).toStrictEqual(winner % 2 === 0 ? undefined : { ...plant, name: `writer ${winner}` });
  });

  it('when a create is retried after a change, then it is compared with the content now stored: equal is a retry, else a conflict', async () => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    await plants().update(plant.id, { name: 'Palm', tag: null });
    await expect(plants().insertIfAbsent(plant)).resolves.toStrictEqual({
      inserted: false,
      existing: { id: plant.id, name: 'Palm' },
    });
    await expect(createPlant({ plants: plants() }, plant)).rejects.toBeInstanceOf(PlantConflictError);
    await expect(createPlant({ plants: plants() }, { id: plant.id, name: 'Palm' })).resolves.toStrictEqual({
      plant: { name: 'Palm' },
      created: false,
    });
    await expect(plants().findById(plant.id)).resolves.toStrictEqual({ id: plant.id, name: 'Palm' });
  });

  it('when a plant grows past 2,000 bytes of name and tag and shrinks back, then each change is stored and listed exactly', async () => {
    // PostgreSQL keeps pages of long plants in other indexes than short ones: a change moves it across.
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    for (const change of [
      { name: 'long '.repeat(1_000) },
      { tag: 't'.repeat(3_000) },
      { name: 'Fern' },
      { tag: 'aroid' },
    ]) {
      const outcome = await plants().update(plant.id, change);
      expect(outcome.outcome).toBe('updated');
      const stored = outcome.outcome === 'updated' ? outcome.plant : undefined;
      await expect(plants().findById(plant.id)).resolves.toStrictEqual(stored);
      await expect(plants().listAfter(plant.id - 1n, 1)).resolves.toMatchObject({ plants: [stored] });
    }
  });

  it('when the use cases replace and patch a plant, then each answers the plant as stored', async () => {
    const plant = await storedPlant(plants(), 'Fern', 'aroid');
    await expect(
      replacePlant({ plants: plants() }, plant.id, { id: plant.id, name: 'Palm' }),
    ).resolves.toStrictEqual({
      name: 'Palm',
    });
    await expect(
      patchPlant(
        { plants: plants() },
        plant.id,
        { tag: '' },
        { ifMatch: (current) => current.name === 'Palm' },
      ),
    ).resolves.toStrictEqual({ name: 'Palm', tag: '' });
    await expect(plants().findById(plant.id)).resolves.toStrictEqual({ id: plant.id, name: 'Palm', tag: '' });
  });

  it('when random sequences of creates, changes, conditional changes and deletes run, some at once, then every answer and the store agree with a Map model (property)', async () => {
    await checkChangesAgainstModel(plants(), 30);
  });
}
