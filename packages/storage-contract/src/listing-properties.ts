import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  INT64_MAX,
  INT64_MIN,
  listPlants,
  type NewPlant,
  newPlant,
  type PageSelection,
  type PlantRepository,
} from '@plant-store/domain';
import fc from 'fast-check';
import { expect } from 'vitest';
import { freshIdBand } from './id-band.ts';
import { storeOrKeep } from './store-or-keep.ts';

const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Property: for any int64 ids stored (fast-check leans to the edges and to 0), listing right before
 * an id gives exactly that plant, and listing right after it gives an id no further than the next
 * of them. Other plants of a shared store may lie between two of them, never before or on one.
 */
export async function checkListingNeighbours(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), { minLength: 1, maxLength: 8 }),
      async (ids) => {
        const stored = new Map<bigint, NewPlant>();
        for (const id of ids) stored.set(id, await storeOrKeep(plants, { id, name: `neighbour ${id}` }));
        const sorted = [...ids].sort(ascending);
        for (const [index, id] of sorted.entries()) {
          const before = await plants.listAfter(id === INT64_MIN ? undefined : id - 1n, 1);
          expect(before.plants).toStrictEqual([stored.get(id)]);
          const [following] = (await plants.listAfter(id, 1)).plants;
          const next = sorted[index + 1];
          if (next === undefined && following === undefined) continue;
          expect(
            following !== undefined && following.id > id && (next === undefined || following.id <= next),
            `after ${id} came ${following?.id}, the next stored being ${next}`,
          ).toBe(true);
        }
      },
    ),
    { numRuns },
  );
}

const TAGS = [undefined, '', 'x'] as const;

/** A plant with a name and tag that say which write it came from. */
function plantOf(id: bigint, name: string, tagChoice: number): NewPlant {
  return newPlant(id, name, TAGS[tagChoice % TAGS.length]);
}

const churnStepArbitrary = fc.record({
  kind: fc.constantFrom('create' as const, 'delete' as const),
  offset: fc.nat(15),
  turns: fc.nat(2),
});
type ChurnStep = typeof churnStepArbitrary extends fc.Arbitrary<infer T> ? T : never;

/**
 * Property: pages walked with listPlants (each `after` the last id of the one before) while other
 * tasks create and delete plants of the same band: every plant stored for the whole walk comes
 * exactly once and exactly as stored; ids come strictly ascending, so none twice; and every plant
 * that comes was written by someone, with content someone wrote under its id.
 */
export async function checkPagingUnderChurn(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.nat(31), { maxLength: 24 }),
      fc.uniqueArray(fc.nat(15), { maxLength: 12 }),
      fc.array(fc.array(churnStepArbitrary, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.nat(2), { minLength: 1 }),
      async (stableOffsets, churnedAtStart, tasks, limit, pauses) => {
        const band = freshIdBand();
        // Even offsets stay for the whole walk; odd ones are created and deleted meanwhile.
        const stableId = (offset: number): bigint => band.at(2 * offset);
        const churnId = (offset: number): bigint => band.at(2 * offset + 1);
        const written = new Map<bigint, Set<string>>();
        const write = async (plant: NewPlant): Promise<void> => {
          // Recorded before the write starts: a walk may see the plant before the insert resolves.
          written.set(plant.id, (written.get(plant.id) ?? new Set()).add(contentKey(plant)));
          await plants.insertIfAbsent(plant);
        };

        const stable = stableOffsets.map((offset) => plantOf(stableId(offset), `stable ${offset}`, offset));
        await Promise.all(stable.map(write));
        await Promise.all(
          churnedAtStart.map((offset) => write(plantOf(churnId(offset), 'churn at start', 0))),
        );

        let writes = 0;
        const churn = async (steps: readonly ChurnStep[]): Promise<void> => {
          for (const step of steps) {
            for (let turn = 0; turn < step.turns; turn += 1) await nextTurn();
            writes += 1;
            if (step.kind === 'create') await write(plantOf(churnId(step.offset), `churn ${writes}`, writes));
            else await plants.deleteById(churnId(step.offset));
          }
        };
        const walk = async (): Promise<NewPlant[]> => {
          const seen: NewPlant[] = [];
          let selection: PageSelection | undefined = { limit, after: band.before };
          for (let pageIndex = 0; selection !== undefined; pageIndex += 1) {
            const page = await listPlants({ plants }, selection);
            // Pauses between pages let the other tasks change the band in between.
            const pause = pauses[pageIndex % pauses.length] as number;
            for (let turn = 0; turn < pause; turn += 1) await nextTurn();
            expect(page.plants.length).toBeLessThanOrEqual(limit);
            const inBand = page.plants.filter((plant) => band.contains(plant.id));
            seen.push(...inBand);
            if (inBand.length < page.plants.length) break;
            selection = page.next;
          }
          return seen;
        };

        const [seen] = await Promise.all([walk(), ...tasks.map(churn)]);
        const ids = seen.map((plant) => plant.id);
        expect(ids).toStrictEqual([...new Set(ids)].sort(ascending));
        const stableIds = new Set(stable.map((plant) => plant.id));
        expect(seen.filter((plant) => stableIds.has(plant.id))).toStrictEqual(
          [...stable].sort((a, b) => ascending(a.id, b.id)),
        );
        for (const plant of seen) {
          expect(written.get(plant.id)?.has(contentKey(plant)), `${plant.id} was written so`).toBe(true);
        }
      },
    ),
    { numRuns },
  );
}

/** One text per distinct plant, telling an absent tag from an empty one. */
function contentKey(plant: NewPlant): string {
  return JSON.stringify([`${plant.id}`, plant.name, plant.tag ?? null]);
}
