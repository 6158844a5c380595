import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  INT64_MAX,
  INT64_MIN,
  listPlants,
  type NewPlant,
  newPlant,
  type PageSelection,
  type PlantChange,
  type PlantRepository,
} from '@plant-store/domain';
import fc from 'fast-check';
import { expect } from 'vitest';
import { freshIdBand, walkBand } from './id-band.ts';
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

/** The tags of the tag properties: absent, empty, and texts that differ only slightly. */
const LISTED_TAGS: readonly string[] = ['', 'a', 'A', 'a ', '\ufeffa'];
const TAG_CHOICES: readonly (string | undefined)[] = [undefined, ...LISTED_TAGS];

const tagStepArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    offset: fc.nat(11),
    tag: fc.nat(TAG_CHOICES.length - 1),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    offset: fc.nat(11),
    // A choice of TAG_CHOICES (no tag: removed), or TAG_CHOICES.length: the tag left as it is.
    tag: fc.nat(TAG_CHOICES.length),
    rename: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), offset: fc.nat(11) }),
);

/** The change an update step makes: a tag, its removal, or none, and a new name or not. */
function changeOf(step: { tag: number; rename: boolean }, writes: number): PlantChange {
  const name = step.rename ? { name: `renamed ${writes}` } : {};
  if (step.tag === TAG_CHOICES.length) return name;
  return { ...name, tag: TAG_CHOICES[step.tag] ?? null };
}

/**
 * Property: after any sequence of creates, updates (a tag set, removed or kept; a name changed or not)
 * and deletes of plants of one band, listing the band by each tag, at any page size, gives exactly the
 * plants a Map model holds with that tag, ascending, each as the model holds it.
 */
export async function checkTagListingAgainstModel(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(tagStepArbitrary, { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 1, max: 5 }),
      async (steps, limit) => {
        const band = freshIdBand();
        const model = new Map<number, NewPlant>();
        let writes = 0;
        for (const step of steps) {
          writes += 1;
          const id = band.at(step.offset);
          if (step.kind === 'create') {
            const plant = newPlant(id, `plant ${writes}`, TAG_CHOICES[step.tag]);
            await plants.insertIfAbsent(plant);
            if (!model.has(step.offset)) model.set(step.offset, plant);
          } else if (step.kind === 'delete') {
            await plants.deleteById(id);
            model.delete(step.offset);
          } else {
            const change = changeOf(step, writes);
            const outcome = await plants.update(id, change);
            const known = model.get(step.offset);
            if (known === undefined) {
              expect(outcome).toStrictEqual({ outcome: 'absent' });
              continue;
            }
            const tag = change.tag === undefined ? known.tag : (change.tag ?? undefined);
            const next = newPlant(id, change.name ?? known.name, tag);
            expect(outcome).toStrictEqual({ outcome: 'updated', plant: next });
            model.set(step.offset, next);
          }
        }
        const inOrder = [...model.values()].sort((a, b) => ascending(a.id, b.id));
        for (const tag of LISTED_TAGS) {
          const expected = inOrder.filter((plant) => plant.tag === tag);
          await expect(
            walkBand(plants, band, limit, tag),
            `by tag ${JSON.stringify(tag)}`,
          ).resolves.toStrictEqual(expected);
        }
      },
    ),
    { numRuns },
  );
}

const TAG_OF_WALK = 'walked';

const tagChurnStepArbitrary = fc.record({
  kind: fc.constantFrom('create' as const, 'delete' as const, 'retag' as const, 'rename' as const),
  offset: fc.nat(15),
  // Where a created or retagged plant goes: 0 the walked tag, 1 another, 2 none.
  tag: fc.nat(2),
  turns: fc.nat(2),
});
type TagChurnStep = typeof tagChurnStepArbitrary extends fc.Arbitrary<infer T> ? T : never;

const CHURN_TAGS = [TAG_OF_WALK, `${TAG_OF_WALK} `, undefined] as const;

/**
 * Property: pages by tag walked with listPlants while other tasks create, retag, rename and delete
 * plants of the same band: every plant that holds the tag for the whole walk comes exactly once (its
 * name may change on the way: with a name someone wrote); ids come strictly ascending; every plant that
 * comes holds the tag, with content someone wrote under its id.
 */
export async function checkTagPagingUnderChurn(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.nat(31), { maxLength: 16 }),
      fc.uniqueArray(fc.nat(15), { maxLength: 12 }),
      fc.array(fc.array(tagChurnStepArbitrary, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.nat(2), { minLength: 1 }),
      async (stableOffsets, churnedAtStart, tasks, limit, pauses) => {
        const band = freshIdBand();
        // Even offsets hold the walked tag throughout (renamed now and then); odd ones come and go.
        const stableId = (offset: number): bigint => band.at(2 * offset);
        const churnId = (offset: number): bigint => band.at(2 * offset + 1);
        const written = new Map<bigint, Set<string>>();
        const record = (plant: NewPlant): void => {
          written.set(plant.id, (written.get(plant.id) ?? new Set()).add(contentKey(plant)));
        };
        // Every content the store held under an id came from a create or a change: all are recorded,
        // and what a walk saw is checked against them once every write has resolved.
        const create = async (plant: NewPlant): Promise<void> => {
          record(plant);
          await plants.insertIfAbsent(plant);
        };
        const change = async (id: bigint, edit: PlantChange): Promise<void> => {
          const outcome = await plants.update(id, edit);
          if (outcome.outcome === 'updated') record(outcome.plant);
        };

        // Stable plants of the walked tag, and of another, which never come.
        const stable = stableOffsets.map((offset) =>
          newPlant(stableId(offset), `stable ${offset}`, offset % 3 === 0 ? `${TAG_OF_WALK} ` : TAG_OF_WALK),
        );
        await Promise.all(stable.map(create));
        await Promise.all(
          churnedAtStart.map((offset) => create(newPlant(churnId(offset), 'churn at start', TAG_OF_WALK))),
        );

        let writes = 0;
        const churn = async (steps: readonly TagChurnStep[]): Promise<void> => {
          for (const step of steps) {
            for (let turn = 0; turn < step.turns; turn += 1) await nextTurn();
            writes += 1;
            const tag = CHURN_TAGS[step.tag];
            if (step.kind === 'create') await create(newPlant(churnId(step.offset), `churn ${writes}`, tag));
            else if (step.kind === 'delete') await plants.deleteById(churnId(step.offset));
            else if (step.kind === 'retag') await change(churnId(step.offset), { tag: tag ?? null });
            // Renaming keeps the tag: stable plants are renamed too.
            else
              await change(step.offset % 2 === 0 ? stableId(step.offset) : churnId(step.offset), {
                name: `renamed ${writes}`,
              });
          }
        };
        const walk = async (): Promise<NewPlant[]> => {
          const seen: NewPlant[] = [];
          let selection: PageSelection | undefined = { limit, after: band.before, tag: TAG_OF_WALK };
          for (let pageIndex = 0; selection !== undefined; pageIndex += 1) {
            const page = await listPlants({ plants }, selection);
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
        const walkedIds = stable.filter((plant) => plant.tag === TAG_OF_WALK).map((plant) => plant.id);
        expect(ids.filter((id) => walkedIds.includes(id))).toStrictEqual(walkedIds.sort(ascending));
        for (const plant of seen) {
          expect(plant.tag).toBe(TAG_OF_WALK);
          expect(written.get(plant.id)?.has(contentKey(plant)), `${plant.id} was written so`).toBe(true);
        }
      },
    ),
    { numRuns },
  );
}
