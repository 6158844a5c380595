import { INT64_MAX, INT64_MIN, type NewPlant, type PlantRepository } from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import { expect } from 'vitest';

/** How many ids a band holds: small, so that other tests' random ids practically never fall in one. */
const BAND_WIDTH = 2n ** 20n;
// Bands stay this far from 0, ±2^53 and the int64 edges, where tests store fixed ids (and
// fast-check's biased ids land) that stay in a shared store for good.
const BAND_MARGIN = 2n ** 60n;

/**
 * A band of 2^20 consecutive ids of one's own: listing tests page within it, from `before`, and
 * look only at ids inside it, so they hold on a store full of other plants. Fresh random ids of
 * other tests fall in a given band with probability 2^-44 each.
 */
export interface IdBand {
  /** The id `offset` places into the band. */
  at(offset: number): bigint;
  /** The offset of an id of the band. */
  offsetOf(id: bigint): number;
  contains(id: bigint): boolean;
  /** The cursor just before the band: `listAfter(before, n)` starts with its smallest stored id. */
  readonly before: bigint;
}

export function freshIdBand(): IdBand {
  let start: bigint;
  do start = randomPlantId() & -BAND_WIDTH;
  while (
    (start > -BAND_MARGIN && start < BAND_MARGIN) ||
    start < INT64_MIN + BAND_MARGIN ||
    start > INT64_MAX - BAND_MARGIN
  );
  return {
    at: (offset) => start + BigInt(offset),
    offsetOf: (id) => Number(id - start),
    contains: (id) => id >= start && id < start + BAND_WIDTH,
    before: start - 1n,
  };
}

/**
 * Walks the band page by page with listAfter (by `tag` when given) and returns its plants in the order
 * they came, checking on the way that each page holds at most `limit` plants, ascending, after its
 * cursor, and only plants of the tag.
 */
export async function walkBand(
  plants: PlantRepository,
  band: IdBand,
  limit: number,
  tag?: string,
): Promise<NewPlant[]> {
  const seen: NewPlant[] = [];
  let after = band.before;
  for (;;) {
    const { plants: page, more } = await plants.listAfter(after, limit, undefined, tag);
    if (tag !== undefined) for (const plant of page) expect(plant.tag).toBe(tag);
    expect(page.length).toBeLessThanOrEqual(limit);
    let previous = after;
    for (const plant of page) {
      expect(plant.id > previous, `${plant.id} comes after ${previous}`).toBe(true);
      previous = plant.id;
    }
    const inBand = page.filter((plant) => band.contains(plant.id));
    seen.push(...inBand);
    // The end of the store, or an id beyond the band: the end of the band.
    if (!more || inBand.length < page.length) return seen;
    // Without a byte budget only the limit ends a page early.
    expect(page).toHaveLength(limit);
    after = previous;
  }
}
