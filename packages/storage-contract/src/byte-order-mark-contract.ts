import {
  createPlant,
  getPlant,
  type NewPlant,
  newPlant,
  PlantConflictError,
  type PlantRepository,
} from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import { expect, it } from 'vitest';
import { freshIdBand } from './id-band.ts';

const BOM = '\ufeff';

/**
 * Texts that begin with U+FEFF: a UTF-8 decoder that treats it as a byte order mark (WHATWG
 * TextDecoder's default) drops it from the start of each value it decodes, so a store may hold the
 * right bytes and still answer another string.
 */
const LEADING_BOM: readonly (readonly [label: string, name: string, tag: string | undefined])[] = [
  ['in the name', `${BOM}Monstera`, undefined],
  ['in the tag', 'Monstera', `${BOM}aroid`],
  ['in both', `${BOM}Monstera`, `${BOM}aroid`],
  ['alone, as the whole name and tag', BOM, BOM],
  ['doubled', `${BOM}${BOM}Monstera`, `${BOM}${BOM}`],
  ['before an empty-looking tag', 'Fern', `${BOM} `],
];

/** What createPlant makes of a body: the outcome, or the conflict it throws. */
async function attempt(plants: PlantRepository, plant: NewPlant): Promise<string> {
  try {
    return (await createPlant({ plants }, plant)).created ? 'created' : 'retry';
  } catch (error) {
    if (error instanceof PlantConflictError) return 'conflict';
    throw error;
  }
}

/**
 * A leading U+FEFF is content, never a byte order mark (DESIGN.md): stored, read, listed and
 * compared exactly, so a retry and a conflict are told apart as for any other text.
 */
export function describeByteOrderMarkContract(plants: () => PlantRepository): void {
  it.each(LEADING_BOM)(
    'when U+FEFF leads %s, then findById and listAfter give it back exactly',
    async (_, name, tag) => {
      const band = freshIdBand();
      const plant = newPlant(band.at(1), name, tag);
      await expect(plants().insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
      const found = await plants().findById(plant.id);
      expect(found).toStrictEqual(plant);
      expect([...(found?.name ?? '')].length).toBe([...name].length);
      await expect(plants().listAfter(band.before, 1)).resolves.toMatchObject({ plants: [plant] });
      // The budget counts the U+FEFF's three bytes: it fits exactly, not one byte less.
      const bytes = Buffer.byteLength(name) + (tag === undefined ? 0 : Buffer.byteLength(tag));
      await plants().insertIfAbsent({ id: band.at(2), name: 'next' });
      await expect(plants().listAfter(band.before, 2, bytes + 4)).resolves.toMatchObject({
        plants: [plant, { id: band.at(2), name: 'next' }],
      });
      await expect(plants().listAfter(band.before, 2, bytes + 3)).resolves.toStrictEqual({
        plants: [plant],
        more: true,
      });
    },
  );

  it.each(LEADING_BOM)(
    'when U+FEFF leads %s and the same plant is sent again, then it is a retry; without the U+FEFF, a conflict',
    async (_, name, tag) => {
      const plant = newPlant(randomPlantId(), name, tag);
      const stripped = newPlant(plant.id, name.replace(/^\ufeff+/, ''), tag?.replace(/^\ufeff+/, ''));
      expect(await attempt(plants(), plant)).toBe('created');
      expect(await attempt(plants(), { ...plant })).toBe('retry');
      expect(await attempt(plants(), stripped)).toBe('conflict');
      await expect(plants().insertIfAbsent(stripped)).resolves.toStrictEqual({
        inserted: false,
        existing: plant,
      });
      await expect(getPlant({ plants: plants() }, plant.id)).resolves.toStrictEqual(
        tag === undefined ? { name } : { name, tag },
      );
    },
  );

  it('when the plant without the U+FEFF was stored first, then the one with it is the conflict', async () => {
    const plant = { id: randomPlantId(), name: 'Monstera', tag: 'aroid' };
    expect(await attempt(plants(), plant)).toBe('created');
    expect(await attempt(plants(), { ...plant, name: `${BOM}Monstera` })).toBe('conflict');
    expect(await attempt(plants(), { ...plant, tag: `${BOM}aroid` })).toBe('conflict');
    expect(await attempt(plants(), { ...plant })).toBe('retry');
  });
}
