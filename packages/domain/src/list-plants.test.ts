import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidParameterError, StorageUnavailableError } from './errors.ts';
import { type ListPlantsDeps, listPlants } from './list-plants.ts';
import { INT64_MAX, INT64_MIN, type NewPlant } from './plant.ts';

/** A listAfter over a fixed set of plants (each name as long as its id's digits), recording what it was asked. */
function storedPlants(
  ids: readonly bigint[],
): ListPlantsDeps['plants'] & { asked: [bigint | undefined, number, number | undefined][] } {
  const sorted = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const asked: [bigint | undefined, number, number | undefined][] = [];
  return {
    asked,
    listAfter: async (after, limit, maxBytes = Number.POSITIVE_INFINITY) => {
      asked.push([after, limit, maxBytes === Number.POSITIVE_INFINITY ? undefined : maxBytes]);
      const following = sorted.filter((id) => after === undefined || id > after);
      const plants: NewPlant[] = [];
      let bytes = 0;
      for (const id of following.slice(0, limit)) {
        const name = `${id}`;
        if (plants.length > 0 && bytes + name.length > maxBytes) break;
        bytes += name.length;
        plants.push({ id, name });
      }
      return { plants, more: following.length > plants.length };
    },
  };
}

const range = (from: number, to: number): bigint[] =>
  Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));

function problemsOf(error: unknown): string[] {
  expect(error).toBeInstanceOf(InvalidParameterError);
  return (error as InvalidParameterError).issues.map(({ field, problem }) => `${field}: ${problem}`);
}

describe('listPlants', () => {
  it('when no limit is given, then a page holds 100 plants and names the next page after its last id', async () => {
    const plants = storedPlants(range(1, 250));
    const page = await listPlants({ plants });
    expect(page.plants.map((plant) => plant.id)).toEqual(range(1, 100));
    expect(page.next).toStrictEqual({ limit: 100, after: 100n });
    expect(plants.asked).toEqual([[undefined, 100, undefined]]);
  });

  it('when exactly limit plants remain, then the page holds them all and names no next page', async () => {
    const page = await listPlants({ plants: storedPlants(range(1, 5)) }, { limit: 5 });
    expect(page.plants).toHaveLength(5);
    expect(page).not.toHaveProperty('next');
  });

  it('when after is given, then only greater ids come, and the next page continues from the last', async () => {
    const plants = storedPlants([INT64_MIN, -2n, -1n, 0n, 1n, INT64_MAX]);
    const first = await listPlants({ plants }, { limit: 2, after: -2n });
    expect(first.plants.map((plant) => plant.id)).toEqual([-1n, 0n]);
    expect(first.next).toStrictEqual({ limit: 2, after: 0n });
    const second = await listPlants({ plants }, { limit: 2, after: 0n });
    expect(second.plants.map((plant) => plant.id)).toEqual([1n, INT64_MAX]);
    expect(second).not.toHaveProperty('next');
  });

  it('when after is the largest int64, then the page is empty and last', async () => {
    await expect(
      listPlants({ plants: storedPlants([INT64_MAX]) }, { after: INT64_MAX }),
    ).resolves.toStrictEqual({
      plants: [],
    });
  });

  it('when pages are walked by next, then every plant comes exactly once, ascending (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (ids, limit) => {
          const plants = storedPlants(ids);
          const seen: bigint[] = [];
          let page = await listPlants({ plants }, { limit });
          seen.push(...page.plants.map((plant) => plant.id));
          while (page.next) {
            expect(page.plants).toHaveLength(limit);
            page = await listPlants({ plants }, page.next);
            seen.push(...page.plants.map((plant) => plant.id));
          }
          expect(seen).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([
    [{ limit: 0 }, ['limit: must be an integer from 1 to 1000']],
    [{ limit: 1001 }, ['limit: must be an integer from 1 to 1000']],
    [{ limit: 1.5 }, ['limit: must be an integer from 1 to 1000']],
    [{ limit: Number.NaN }, ['limit: must be an integer from 1 to 1000']],
    [{ limit: '10' }, ['limit: must be an integer from 1 to 1000']],
    [
      { after: INT64_MAX + 1n },
      ['after: must be an integer between -9223372036854775808 and 9223372036854775807'],
    ],
    [{ after: '5' }, ['after: must be an integer, not a string']],
    [
      { limit: 0, after: INT64_MIN - 1n },
      [
        'limit: must be an integer from 1 to 1000',
        'after: must be an integer between -9223372036854775808 and 9223372036854775807',
      ],
    ],
  ])(
    'when the query is %o, then it throws InvalidParameterError naming each bad parameter, and storage is never asked',
    async (query, problems) => {
      const plants = storedPlants([1n]);
      const error = await listPlants({ plants }, query as never).catch((caught: unknown) => caught);
      expect(problemsOf(error)).toEqual(problems);
      expect(plants.asked).toEqual([]);
    },
  );

  it.each([1, 1000])('when limit is %i, then it is accepted', async (limit) => {
    const plants = storedPlants([1n]);
    await listPlants({ plants }, { limit });
    expect(plants.asked).toEqual([[undefined, limit, undefined]]);
  });

  it('when a page is given a byte budget, then it is passed on, and a page cut short by it names the next page after its last plant', async () => {
    // Names of 2 bytes (10 to 99): 7 fit in 15 bytes.
    const plants = storedPlants(range(10, 40));
    const page = await listPlants({ plants }, { limit: 20 }, { maxBytes: 15 });
    expect(page.plants.map((plant) => plant.id)).toEqual(range(10, 16));
    expect(page.next).toStrictEqual({ limit: 20, after: 16n });
    expect(plants.asked).toEqual([[undefined, 20, 15]]);
  });

  it('when the first plant alone is over the budget, then the page holds it alone and names the next page', async () => {
    const page = await listPlants({ plants: storedPlants(range(100, 102)) }, {}, { maxBytes: 1 });
    expect(page.plants.map((plant) => plant.id)).toEqual([100n]);
    expect(page.next).toStrictEqual({ limit: 100, after: 100n });
  });

  it('when pages are walked by next under a byte budget, then every plant comes exactly once, ascending (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 60 }),
        async (ids, limit, maxBytes) => {
          const plants = storedPlants(ids);
          const seen: bigint[] = [];
          let page = await listPlants({ plants }, { limit }, { maxBytes });
          seen.push(...page.plants.map((plant) => plant.id));
          while (page.next) {
            expect(page.plants.length).toBeGreaterThan(0);
            page = await listPlants({ plants }, page.next, { maxBytes });
            seen.push(...page.plants.map((plant) => plant.id));
          }
          expect(seen).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('when storage is unavailable, then its error reaches the caller unchanged', async () => {
    const outage = new StorageUnavailableError('database unreachable');
    await expect(listPlants({ plants: { listAfter: () => Promise.reject(outage) } })).rejects.toBe(outage);
  });

  it.each([['aroid'], [''], ['\ufeff🌵 Cafe\u0301 ']])(
    'when a tag %j is given, then storage is asked for that tag exactly, and the next page keeps it',
    async (tag) => {
      const asked: unknown[][] = [];
      const page = await listPlants(
        {
          plants: {
            listAfter: async (...args) => {
              asked.push(args);
              return { plants: [{ id: 3n, name: 'Fern', tag }], more: true };
            },
          },
        },
        { tag, limit: 1, after: 2n },
        { maxBytes: 10 },
      );
      expect(asked).toStrictEqual([[2n, 1, 10, tag]]);
      expect(page.next).toStrictEqual({ limit: 1, after: 3n, tag });
      // Walking on by next asks for the same tag.
      const next = await listPlants(
        {
          plants: {
            listAfter: async (...args) => {
              asked.push(args);
              return { plants: [], more: false };
            },
          },
        },
        page.next,
      );
      expect(next).toStrictEqual({ plants: [] });
      expect(asked[1]).toStrictEqual([3n, 1, undefined, tag]);
    },
  );

  it('when no tag is given, then storage is asked for no tag and the next page names none', async () => {
    const plants = storedPlants(range(1, 3));
    const page = await listPlants({ plants }, { limit: 1 });
    expect(page.next).toStrictEqual({ limit: 1, after: 1n });
    expect(page.next && Object.keys(page.next)).toEqual(['limit', 'after']);
  });

  it.each([
    [{ tag: 'a\0b' }, ['tag: must not contain the NUL character (U+0000)']],
    [{ tag: '\udfff' }, ['tag: must be well-formed Unicode (it contains a lone surrogate)']],
    [{ tag: 5 }, ['tag: must be a string, not a number']],
    [{ tag: null }, ['tag: must be a string, not null']],
    [{ tag: ['a', 'b'] }, ['tag: must be a string, not an array']],
    [
      { limit: 0, tag: '\0' },
      ['limit: must be an integer from 1 to 1000', 'tag: must not contain the NUL character (U+0000)'],
    ],
  ])(
    'when the selection is %o, then it throws InvalidParameterError naming the tag, and storage is never asked',
    async (query, problems) => {
      const plants = storedPlants([1n]);
      const error = await listPlants({ plants }, query as never).catch((caught: unknown) => caught);
      expect(problemsOf(error)).toEqual(problems);
      expect(plants.asked).toEqual([]);
    },
  );
});
