import { setImmediate as nextTurn } from 'node:timers/promises';
import type { NewPlant, PlantRepository } from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { freshIdBand, walkBand } from './id-band.ts';
import { type Answered, type Content, fitsSomeSerialOrder } from './serial-order.ts';

const CONTENTS: readonly Content[] = [
  { name: 'Fern' },
  { name: 'Fern', tag: '' },
  { name: 'Fern', tag: 'x' },
  { name: 'Palm' },
];

const raceStepArbitrary = fc.record({
  kind: fc.constantFrom('insert' as const, 'delete' as const),
  content: fc.nat(CONTENTS.length - 1),
  // Turns of the event loop to wait before starting, so that operations start while others run.
  turns: fc.nat(3),
});

function show(value: unknown): string {
  return (
    JSON.stringify(value, (_, inner: unknown) => (typeof inner === 'bigint' ? `${inner}` : inner)) ??
    'nothing'
  );
}

/**
 * Property: inserts and deletes of one id, all at once, answer as if the store had run them one at
 * a time in some order, and leave what that order leaves. A plant stored before them, or not.
 */
async function checkDeleteInsertRaces(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.option(fc.nat(CONTENTS.length - 1), { nil: undefined }),
      fc.array(raceStepArbitrary, { minLength: 2, maxLength: 6 }),
      async (storedFirst, steps) => {
        const id = randomPlantId();
        const initial = storedFirst === undefined ? undefined : CONTENTS[storedFirst];
        if (initial !== undefined) await plants.insertIfAbsent({ id, ...initial });
        const answered = await Promise.all(
          steps.map(async (step): Promise<Answered> => {
            for (let turn = 0; turn < step.turns; turn += 1) await nextTurn();
            if (step.kind === 'delete') return { kind: 'delete', answer: await plants.deleteById(id) };
            const content = CONTENTS[step.content] as Content;
            return { kind: 'insert', content, answer: await plants.insertIfAbsent({ id, ...content }) };
          }),
        );
        const found = await plants.findById(id);
        const final = found && (({ id: _, ...content }: NewPlant) => content)(found);
        expect(
          fitsSomeSerialOrder(initial, answered, final),
          `no serial order of ${show(answered)} from ${show(initial)} ends in ${show(final)}`,
        ).toBe(true);
      },
    ),
    { numRuns },
  );
}

/** The deleting rules of the contract, registered in the caller's describe. Every test deletes only ids of its own. */
export function describeDeletingContract(plants: () => PlantRepository): void {
  it('when a stored plant is deleted, then deleteById answers true, and the plant is neither found nor listed', async () => {
    const band = freshIdBand();
    const [before, doomed, after] = [1, 2, 3].map((offset) => ({
      id: band.at(offset),
      name: `plant ${offset}`,
    }));
    for (const plant of [before, doomed, after] as NewPlant[]) await plants().insertIfAbsent(plant);
    await expect(plants().deleteById(band.at(2))).resolves.toBe(true);
    await expect(plants().findById(band.at(2))).resolves.toBeUndefined();
    await expect(walkBand(plants(), band, 10)).resolves.toStrictEqual([before, after]);
  });

  it('when no plant is stored under an id, then deleteById answers false and the plants beside it stay', async () => {
    const band = freshIdBand();
    const neighbours = [
      { id: band.at(1), name: 'left' },
      { id: band.at(3), name: 'right', tag: '' },
    ];
    for (const plant of neighbours) await plants().insertIfAbsent(plant);
    await expect(plants().deleteById(band.at(2))).resolves.toBe(false);
    await expect(walkBand(plants(), band, 10)).resolves.toStrictEqual(neighbours);
  });

  it('when a plant is deleted twice, then the second delete answers false', async () => {
    const plant = { id: randomPlantId(), name: 'Fern' };
    await plants().insertIfAbsent(plant);
    await expect(plants().deleteById(plant.id)).resolves.toBe(true);
    await expect(plants().deleteById(plant.id)).resolves.toBe(false);
  });

  it.each([
    ['no tag, then a tag', { name: 'Fern' }, { name: 'Fern', tag: 'x' }],
    ["a tag, then an empty tag ''", { name: 'Fern', tag: 'x' }, { name: 'Fern', tag: '' }],
    ['another name and no tag', { name: 'Fern', tag: '' }, { name: 'Palm' }],
  ])(
    'when an id is deleted and created again with other content (%s), then the new plant is inserted and found exactly',
    async (_, first, second) => {
      const id = randomPlantId();
      await plants().insertIfAbsent({ id, ...first });
      await expect(plants().deleteById(id)).resolves.toBe(true);
      await expect(plants().insertIfAbsent({ id, ...second })).resolves.toStrictEqual({ inserted: true });
      await expect(plants().findById(id)).resolves.toStrictEqual({ id, ...second });
    },
  );

  it('when two ids differ only beyond 2^53, then deleting one leaves the other', async () => {
    const base = 2n ** 60n + (BigInt.asUintN(40, randomPlantId()) << 8n);
    const kept = { id: base, name: 'kept' };
    await plants().insertIfAbsent(kept);
    await plants().insertIfAbsent({ id: base + 1n, name: 'deleted' });
    await expect(plants().deleteById(base + 1n)).resolves.toBe(true);
    await expect(plants().findById(base)).resolves.toStrictEqual(kept);
    await expect(plants().deleteById(base + 1n)).resolves.toBe(false);
  });

  it('when 20 deletes of one id race, then exactly one answers true', async () => {
    const id = randomPlantId();
    await plants().insertIfAbsent({ id, name: 'contested' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => plants().deleteById(id)));
    expect(answers.filter(Boolean)).toHaveLength(1);
    await expect(plants().findById(id)).resolves.toBeUndefined();
  });

  it('when deletes and creates of one id race, then every answer fits one serial order of them (property)', async () => {
    await checkDeleteInsertRaces(plants(), 60);
  });
}
