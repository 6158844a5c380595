import { INT64_MAX, INT64_MIN, type NewPlant, type PlantRepository } from '@plant-store/domain';
import { expect, it } from 'vitest';
import { freshIdBand, walkBand } from './id-band.ts';
import { checkListingNeighbours, checkPagingUnderChurn } from './listing-properties.ts';
import { storeOrKeep } from './store-or-keep.ts';

/**
 * Runs of consecutive ids where a float, a string, an unsigned or a 32-bit comparison would order
 * ids wrongly. They are fixed ids, shared with other tests and runs, and never deleted by any.
 */
const EDGE_RUNS: readonly (readonly bigint[])[] = [
  [INT64_MIN, INT64_MIN + 1n, INT64_MIN + 2n],
  [-(2n ** 53n) - 1n, -(2n ** 53n), -(2n ** 53n) + 1n],
  [-1n, 0n, 1n],
  [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n],
  [INT64_MAX - 2n, INT64_MAX - 1n, INT64_MAX],
];

async function storeEdgeRuns(plants: PlantRepository): Promise<NewPlant[][]> {
  const stored: NewPlant[][] = [];
  for (const run of EDGE_RUNS) {
    stored.push(await Promise.all(run.map((id) => storeOrKeep(plants, { id, name: `edge ${id}` }))));
  }
  return stored;
}

/**
 * The listing rules of the contract, registered in the caller's describe. Each test works in ids
 * of its own (a fresh band, or fixed ids that nobody deletes), so it holds on a shared store.
 */
export function describeListingContract(plants: () => PlantRepository): void {
  it('when plants are listed after an id, then exactly the greater ids come, ascending, each exactly as stored', async () => {
    const band = freshIdBand();
    const stored = [
      { id: band.at(5), name: 'Palm', tag: 'x' },
      { id: band.at(1), name: 'Fern' },
      { id: band.at(9), name: 'Cafe\u0301 🌵', tag: '' },
      { id: band.at(3), name: '' },
      { id: band.at(7), name: 'Ivy', tag: "'); drop table plants; --" },
    ];
    for (const plant of stored) await plants().insertIfAbsent(plant);
    const [p5, p1, p9, p3, p7] = stored;

    // Whether plants follow the band depends on the rest of the store: only the page is known here.
    await expect(plants().listAfter(band.before, 5)).resolves.toMatchObject({ plants: [p1, p3, p5, p7, p9] });
    const afterThree = await plants().listAfter(band.at(3), 3);
    expect(afterThree.plants).toStrictEqual([p5, p7, p9]);
    // Between two stored ids: the cursor itself need not be stored.
    const afterSix = (await plants().listAfter(band.at(6), 10)).plants.filter((plant) =>
      band.contains(plant.id),
    );
    expect(afterSix).toStrictEqual([p7, p9]);
    expect(afterSix[1] && Object.keys(afterSix[1])).toEqual(['id', 'name', 'tag']);
  });

  it('when a page is asked with a limit, then it holds that many plants when more remain, and no more', async () => {
    const band = freshIdBand();
    const stored = Array.from({ length: 6 }, (_, i) => ({ id: band.at(10 * i), name: `plant ${i}` }));
    await Promise.all(stored.map((plant) => plants().insertIfAbsent(plant)));
    for (const limit of [1, 2, 5]) {
      await expect(plants().listAfter(band.before, limit)).resolves.toStrictEqual({
        plants: stored.slice(0, limit),
        more: true,
      });
    }
    await expect(plants().listAfter(band.before, 6)).resolves.toMatchObject({ plants: stored });
    for (const limit of [1, 2, 3, 7]) {
      await expect(walkBand(plants(), band, limit)).resolves.toStrictEqual(stored);
    }
  });

  it('when long plants (name and tag over 2,000 bytes, up to the body limit) and short ones alternate, then they list in id order, each exactly as stored', async () => {
    // A store may keep pages of short plants apart from long ones (PostgreSQL: an index entry holds
    // ~2.7 KB at most): both must come back as one run, at any page size. Lengths in UTF-8 bytes:
    // 'é' is two, '🌿' four.
    const band = freshIdBand();
    const stored: NewPlant[] = [
      { id: band.at(1), name: 'a'.repeat(2_000) },
      { id: band.at(2), name: 'b'.repeat(2_001) },
      { id: band.at(3), name: 'é'.repeat(1_000), tag: '' },
      { id: band.at(4), name: 'é'.repeat(1_000), tag: 'x' },
      { id: band.at(5), name: 'short', tag: '🌿'.repeat(1_000) },
      { id: band.at(6), name: 'Fern' },
      { id: band.at(7), name: 'long '.repeat(12_000), tag: 'x'.repeat(4_000) },
      { id: band.at(8), name: 'Ivy', tag: 'y'.repeat(1_996) },
      { id: band.at(9), name: 'Ivy', tag: 'y'.repeat(1_998) },
    ];
    for (const plant of [...stored].reverse()) await plants().insertIfAbsent(plant);
    await expect(plants().listAfter(band.before, stored.length)).resolves.toMatchObject({ plants: stored });
    for (const limit of [1, 2, 4]) {
      await expect(walkBand(plants(), band, limit)).resolves.toStrictEqual(stored);
    }
    await expect(plants().listAfter(band.at(4), 3)).resolves.toStrictEqual({
      plants: stored.slice(4, 7),
      more: true,
    });
  });

  it('when no cursor is given, then the list starts at the smallest id of the store, INT64_MIN here', async () => {
    const [minimumRun] = await storeEdgeRuns(plants());
    await expect(plants().listAfter(undefined, 3)).resolves.toStrictEqual({ plants: minimumRun, more: true });
  });

  it('when the cursor is INT64_MIN, then INT64_MIN itself is left out', async () => {
    const [minimumRun = []] = await storeEdgeRuns(plants());
    await expect(plants().listAfter(INT64_MIN, 2)).resolves.toStrictEqual({
      plants: minimumRun.slice(1),
      more: true,
    });
  });

  it('when the cursor is INT64_MAX - 1, then only INT64_MAX comes; after INT64_MAX, nothing', async () => {
    const runs = await storeEdgeRuns(plants());
    const maximum = runs.at(-1)?.at(-1);
    await expect(plants().listAfter(INT64_MAX - 1n, 10)).resolves.toStrictEqual({
      plants: [maximum],
      more: false,
    });
    await expect(plants().listAfter(INT64_MAX - 2n, 1)).resolves.toMatchObject({ more: true });
    await expect(plants().listAfter(INT64_MAX, 10)).resolves.toStrictEqual({ plants: [], more: false });
  });

  it('when ids sit at both int64 edges, around 0 and around ±2^53, then they list in exact numeric order across the whole range', async () => {
    const runs = await storeEdgeRuns(plants());
    for (const [index, run] of runs.entries()) {
      const first = EDGE_RUNS[index]?.[0] as bigint;
      // Consecutive ids: nothing else can come between them, whatever else the store holds.
      const cursor = first === INT64_MIN ? undefined : first - 1n;
      await expect(plants().listAfter(cursor, run.length)).resolves.toMatchObject({ plants: run });
      // From the end of one run, the next id listed is no further than the start of the next run.
      const last = run.at(-1)?.id as bigint;
      const next = runs[index + 1]?.[0]?.id;
      if (next === undefined) continue;
      const [following] = (await plants().listAfter(last, 1)).plants;
      expect(following && following.id > last && following.id <= next, `${following?.id} after ${last}`).toBe(
        true,
      );
    }
  });

  it('when any int64 ids are stored, then each lists right after its predecessor and before its successor (property)', async () => {
    await checkListingNeighbours(plants(), 25);
  });

  it('when pages are walked while other tasks create and delete plants, then every plant stored throughout comes exactly once, ascending, and nothing that was never stored comes (property)', async () => {
    await checkPagingUnderChurn(plants(), 25);
  });
}
