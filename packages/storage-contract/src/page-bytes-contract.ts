import type { NewPlant, PlantRepository } from '@plant-store/domain';
import { expect, it } from 'vitest';
import { freshIdBand, type IdBand } from './id-band.ts';

/** What a plant counts against a page's budget: the UTF-8 bytes of its name and tag. */
const bytesOf = (plant: NewPlant): number =>
  Buffer.byteLength(plant.name) + (plant.tag === undefined ? 0 : Buffer.byteLength(plant.tag));

/** Walks the band with a budget, checking every page against it, and returns the band's plants in order. */
async function walkWithBudget(
  plants: PlantRepository,
  band: IdBand,
  limit: number,
  maxBytes: number,
): Promise<NewPlant[]> {
  const seen: NewPlant[] = [];
  let after = band.before;
  for (;;) {
    const { plants: page, more } = await plants.listAfter(after, limit, maxBytes);
    expect(page.length).toBeLessThanOrEqual(limit);
    if (page.length > 1)
      expect(page.reduce((sum, plant) => sum + bytesOf(plant), 0)).toBeLessThanOrEqual(maxBytes);
    if (more) expect(page.length).toBeGreaterThan(0);
    const inBand = page.filter((plant) => band.contains(plant.id));
    seen.push(...inBand);
    if (!more || inBand.length < page.length) return seen;
    after = page.at(-1)?.id as bigint;
  }
}

/**
 * A page's byte budget (listAfter's `maxBytes`): a page holds the plants that fit in it, stops before
 * the one that would pass it, always holds one plant, and says that more follow when it stops short.
 */
export function describePageBytesContract(plants: () => PlantRepository): void {
  it('when a page has a byte budget, then it holds the plants that fit, counted in UTF-8 bytes of name and tag, and stops before the one that would pass it', async () => {
    const band = freshIdBand();
    const stored: NewPlant[] = [
      { id: band.at(1), name: 'a'.repeat(100) },
      { id: band.at(2), name: 'é'.repeat(50), tag: '🌿'.repeat(25) },
      { id: band.at(3), name: 'x', tag: '' },
      { id: band.at(4), name: 'b'.repeat(5_000) },
    ];
    for (const plant of stored) await plants().insertIfAbsent(plant);
    expect(stored.map(bytesOf)).toEqual([100, 200, 1, 5_000]);
    const [p1, p2, p3] = stored;
    // Exactly the budget fits; one byte less does not.
    await expect(plants().listAfter(band.before, 10, 301)).resolves.toStrictEqual({
      plants: [p1, p2, p3],
      more: true,
    });
    await expect(plants().listAfter(band.before, 10, 300)).resolves.toStrictEqual({
      plants: [p1, p2],
      more: true,
    });
    await expect(plants().listAfter(band.before, 10, 299)).resolves.toStrictEqual({
      plants: [p1],
      more: true,
    });
    // The limit still counts: it ends the page first here.
    await expect(plants().listAfter(band.before, 2, 100_000)).resolves.toStrictEqual({
      plants: [p1, p2],
      more: true,
    });
  });

  it('when the first plant alone is larger than the budget, then the page holds it alone, whole, and says more follow', async () => {
    const band = freshIdBand();
    const big = { id: band.at(1), name: 'Monstera '.repeat(7_000), tag: 'aroid' };
    const small = { id: band.at(2), name: 'Fern' };
    await plants().insertIfAbsent(big);
    await plants().insertIfAbsent(small);
    await expect(plants().listAfter(band.before, 100, 1_000)).resolves.toStrictEqual({
      plants: [big],
      more: true,
    });
    await expect(plants().listAfter(band.before, 100, 0)).resolves.toStrictEqual({
      plants: [big],
      more: true,
    });
    await expect(plants().listAfter(big.id, 1, 0)).resolves.toMatchObject({ plants: [small] });
  });

  it('when pages are walked with a budget, then every plant comes exactly once, ascending, each page within it or a single plant', async () => {
    // Short plants and long ones (over 2,000 bytes, which PostgreSQL keeps in another index), mixed.
    const band = freshIdBand();
    const sizes = [10, 2_500, 3, 900, 900, 4_000, 1, 1, 1, 2_001, 1_999, 64 * 1024, 5, 700, 3_000];
    const stored = sizes.map((size, index) =>
      index % 3 === 0
        ? { id: band.at(index * 7), name: 'n'.repeat(size) }
        : { id: band.at(index * 7), name: 'é', tag: 't'.repeat(Math.max(0, size - 2)) },
    );
    for (const plant of [...stored].reverse()) await plants().insertIfAbsent(plant);
    for (const [limit, maxBytes] of [
      [1, 0],
      [3, 1_000],
      [1000, 2_500],
      [4, 5_000],
      [1000, 70_000],
      [1000, 1024 * 1024],
    ] as const) {
      await expect(
        walkWithBudget(plants(), band, limit, maxBytes),
        `limit ${limit}, ${maxBytes} bytes`,
      ).resolves.toStrictEqual(stored);
    }
  });
}
