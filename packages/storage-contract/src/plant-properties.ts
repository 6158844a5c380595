import {
  createPlant,
  deletePlant,
  getPlant,
  INT64_MAX,
  INT64_MIN,
  type NewPlant,
  newPlant,
  PlantConflictError,
  PlantNotFoundError,
  type PlantRepository,
} from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import fc from 'fast-check';
import { expect } from 'vitest';

const anyPlantText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 32 }),
  fc.string({ unit: 'binary-ascii', maxLength: 64 }),
);

/**
 * Text the domain accepts: any code point but NUL, never a lone surrogate ('binary' makes none).
 * Some begin with U+FEFF, which a UTF-8 decoder may take for a byte order mark and drop.
 */
export const plantTextArbitrary: fc.Arbitrary<string> = fc
  .oneof(
    { arbitrary: anyPlantText, weight: 4 },
    { arbitrary: anyPlantText.map((text) => `\ufeff${text}`), weight: 1 },
  )
  .filter((text) => !text.includes('\0'));

/** Any int64, biased towards the edges as fast-check does, or a fresh random one. */
const plantIdArbitrary: fc.Arbitrary<bigint> = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.integer().map(() => randomPlantId()),
);

/** Every valid NewPlant: tag absent, empty or any text. */
export const newPlantArbitrary: fc.Arbitrary<NewPlant> = fc
  .record({
    id: plantIdArbitrary,
    name: plantTextArbitrary,
    tag: fc.option(plantTextArbitrary, { nil: undefined }),
  })
  .map(({ id, name, tag }) => newPlant(id, name, tag));

/**
 * Property: whatever valid NewPlant is inserted, findById gives back exactly what is stored under
 * its id: the plant itself when it was inserted, else (an edge id some other test stored) the plant
 * the insert reported.
 */
export async function checkRoundTrip(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(newPlantArbitrary, async (plant) => {
      const outcome = await plants.insertIfAbsent(plant);
      const stored = outcome.inserted ? plant : outcome.existing;
      expect(stored.id).toBe(plant.id);
      expect(await plants.findById(plant.id)).toStrictEqual(stored);
    }),
    { numRuns },
  );
}

/** A few contents that differ only slightly: the same name with no, empty and other tags. */
const CONTENTS: readonly Omit<NewPlant, 'id'>[] = [
  { name: 'Fern' },
  { name: 'Fern', tag: '' },
  { name: 'Fern', tag: 'x' },
  { name: 'Palm' },
];

type Step =
  | { readonly kind: 'create'; readonly id: number; readonly content: number }
  | { readonly kind: 'delete'; readonly id: number }
  | { readonly kind: 'race'; readonly id: number; readonly contents: readonly number[] };

const ID_POOL = 4;
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      id: fc.nat(ID_POOL - 1),
      content: fc.nat(CONTENTS.length - 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(ID_POOL - 1) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('race' as const),
      id: fc.nat(ID_POOL - 1),
      contents: fc.array(fc.nat(CONTENTS.length - 1), { minLength: 2, maxLength: 5 }),
    }),
  },
);

function sameContent(a: Omit<NewPlant, 'id'>, b: Omit<NewPlant, 'id'>): boolean {
  return a.name === b.name && a.tag === b.tag;
}

function contentOf(plant: Omit<NewPlant, 'id'>): Omit<NewPlant, 'id'> {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

/**
 * Property: the createPlant, deletePlant and getPlant use cases over this repository behave as a
 * plain Map model under any sequence of creates, retries (same id, same content), conflicts (same
 * id, other content), deletes (after which the id takes any content) and races (several creates of
 * one id at once: exactly one content wins, the others are retries or conflicts of it). Each run
 * uses fresh ids, so runs and other tests never meet.
 */
export async function checkCreatePlantAgainstModel(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 12 }), async (steps) => {
      const ids = Array.from({ length: ID_POOL }, randomPlantId);
      const model = new Map<number, Omit<NewPlant, 'id'>>();
      const input = (id: number, content: number) => ({ id: ids[id], ...CONTENTS[content] });

      for (const step of steps) {
        if (step.kind === 'delete') {
          const attempt = deletePlant({ plants }, ids[step.id] as bigint);
          if (model.delete(step.id)) await expect(attempt).resolves.toBeUndefined();
          else await expect(attempt).rejects.toBeInstanceOf(PlantNotFoundError);
          continue;
        }
        if (step.kind === 'create') {
          const content = CONTENTS[step.content] as Omit<NewPlant, 'id'>;
          const known = model.get(step.id);
          const attempt = createPlant({ plants }, input(step.id, step.content));
          if (known === undefined) {
            await expect(attempt).resolves.toStrictEqual({ plant: contentOf(content), created: true });
            model.set(step.id, content);
          } else if (sameContent(known, content)) {
            await expect(attempt).resolves.toStrictEqual({ plant: contentOf(known), created: false });
          } else {
            await expect(attempt).rejects.toBeInstanceOf(PlantConflictError);
          }
          continue;
        }
        const results = await Promise.allSettled(
          step.contents.map((content) => createPlant({ plants }, input(step.id, content))),
        );
        const wasKnown = model.has(step.id);
        let winner = model.get(step.id);
        if (winner === undefined) {
          const created = results.flatMap((result, index) =>
            result.status === 'fulfilled' && result.value.created ? [step.contents[index] as number] : [],
          );
          expect(created).toHaveLength(1);
          winner = CONTENTS[created[0] as number] as Omit<NewPlant, 'id'>;
          model.set(step.id, winner);
        }
        let createdSeen = false;
        results.forEach((result, index) => {
          const content = CONTENTS[step.contents[index] as number] as Omit<NewPlant, 'id'>;
          if (!sameContent(content, winner)) {
            expect(result.status === 'rejected' && result.reason instanceof PlantConflictError).toBe(true);
            return;
          }
          expect(result.status).toBe('fulfilled');
          if (result.status !== 'fulfilled') return;
          expect(result.value.plant).toStrictEqual(contentOf(winner));
          // Only the one that won may report created, and only when the id was new.
          if (result.value.created) {
            expect(wasKnown).toBe(false);
            expect(createdSeen).toBe(false);
            createdSeen = true;
          }
        });
      }

      for (let id = 0; id < ID_POOL; id++) {
        const known = model.get(id);
        const found = await plants.findById(ids[id] as bigint);
        expect(found).toStrictEqual(known === undefined ? undefined : { id: ids[id], ...contentOf(known) });
        const answer = getPlant({ plants }, ids[id] as bigint);
        if (known === undefined) await expect(answer).rejects.toBeInstanceOf(PlantNotFoundError);
        else await expect(answer).resolves.toStrictEqual(contentOf(known));
      }
    }),
    { numRuns },
  );
}
