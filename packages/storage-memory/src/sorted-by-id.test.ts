import { INT64_MAX, INT64_MIN } from '@plant-store/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSortedById } from './sorted-by-id.ts';

const idsOf = (items: readonly { id: bigint }[]): bigint[] => items.map((item) => item.id);
const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

type Step =
  | { readonly kind: 'add'; readonly id: bigint }
  | { readonly kind: 'delete'; readonly pick: number }
  | { readonly kind: 'after'; readonly after: bigint | undefined; readonly limit: number };

// Ids from a small pool, so that adds meet deletes and pages cross chunks; and any int64 too.
const idArbitrary = fc.oneof(
  fc.bigInt({ min: -40n, max: 40n }),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), id: idArbitrary }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('after' as const),
      after: fc.option(idArbitrary, { nil: undefined }),
      limit: fc.integer({ min: 1, max: 30 }),
    }),
  },
);

describe('SortedById', () => {
  it('when items are added, then listing gives back the items themselves', () => {
    const items = createSortedById<{ id: bigint; name: string }>();
    const fern = { id: -1n, name: 'Fern' };
    items.add({ id: 3n, name: 'Palm' });
    items.add(fern);
    expect(items.after(undefined, 1)[0]).toBe(fern);
  });

  it('when ids are added, deleted and listed in any order, then it answers as a sorted array would (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(stepArbitrary, { maxLength: 300 }),
        (maxChunk, steps) => {
          // Tiny chunks, so that splits, emptied chunks and pages across chunks all happen.
          const ids = createSortedById<{ id: bigint }>(maxChunk);
          let model: bigint[] = [];
          for (const step of steps) {
            if (step.kind === 'add') {
              if (model.includes(step.id)) continue;
              ids.add({ id: step.id });
              model = [...model, step.id].sort(ascending);
            } else if (step.kind === 'delete') {
              if (model.length === 0) continue;
              const id = model[step.pick % model.length] as bigint;
              ids.delete(id);
              model = model.filter((other) => other !== id);
            } else {
              const expected = model
                .filter((id) => step.after === undefined || id > step.after)
                .slice(0, step.limit);
              expect(idsOf(ids.after(step.after, step.limit))).toEqual(expected);
            }
          }
          expect(idsOf(ids.after(undefined, model.length + 1))).toEqual(model);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('when ids are added in descending order past many splits, then listing walks them all ascending', () => {
    const ids = createSortedById<{ id: bigint }>(4);
    for (let id = 999n; id >= 0n; id -= 1n) ids.add({ id });
    const walked: bigint[] = [];
    let after: bigint | undefined;
    for (let page = idsOf(ids.after(after, 7)); page.length > 0; page = idsOf(ids.after(after, 7))) {
      walked.push(...page);
      after = page[page.length - 1];
    }
    expect(walked).toEqual(Array.from({ length: 1000 }, (_, i) => BigInt(i)));
  });

  it('when ids mostly grow (appended past many splits), with some below them, then listing walks them all ascending', () => {
    const ids = createSortedById<{ id: bigint }>(4);
    const model: bigint[] = [];
    for (let id = 0n; id < 1000n; id += 2n) {
      ids.add({ id });
      model.push(id);
      // Now and then one below the top, into a chunk that is not the last.
      if (id % 14n === 12n) {
        ids.add({ id: id - 7n });
        model.push(id - 7n);
      }
    }
    model.sort(ascending);
    const walked: bigint[] = [];
    let after: bigint | undefined;
    for (let page = idsOf(ids.after(after, 5)); page.length > 0; page = idsOf(ids.after(after, 5))) {
      walked.push(...page);
      after = page[page.length - 1];
    }
    expect(walked).toEqual(model);
  });

  it('when ids land near the end of a full-size chunk and far from it, then listing gives them all in order', () => {
    // Chunks of the default size, with inserts just below the top of the last and deep inside the others.
    const ids = createSortedById<{ id: bigint }>();
    const model: bigint[] = [];
    for (let id = 0n; id < 3000n; id += 2n) {
      ids.add({ id });
      model.push(id);
    }
    for (const id of [2999n, 2991n, 2937n, 1501n, 1n, 2025n, 2997n, 17n, 2047n, 2049n]) {
      ids.add({ id });
      model.push(id);
    }
    model.sort(ascending);
    expect(idsOf(ids.after(undefined, model.length + 1))).toEqual(model);
  });

  it('when an item is replaced, then listing gives the new item in its place; an id not there is not added', () => {
    const items = createSortedById<{ id: bigint; name: string }>(2);
    for (const id of [5n, 1n, 3n, 7n, 9n]) items.add({ id, name: `first ${id}` });
    const renamed = { id: 3n, name: 'second' };
    items.replace(renamed);
    items.replace({ id: 4n, name: 'never added' });
    const listed = items.after(undefined, 10);
    expect(listed.map((item) => item.name)).toEqual(['first 1', 'second', 'first 5', 'first 7', 'first 9']);
    expect(listed[1]).toBe(renamed);
  });

  it('when the last item is deleted, then it is empty, and not before', () => {
    const items = createSortedById<{ id: bigint }>(2);
    expect(items.isEmpty()).toBe(true);
    for (const id of [1n, 2n, 3n]) items.add({ id });
    for (const id of [2n, 1n]) {
      items.delete(id);
      expect(items.isEmpty()).toBe(false);
    }
    items.delete(3n);
    expect(items.isEmpty()).toBe(true);
  });

  it('when an id is deleted that is not there, then nothing changes', () => {
    const ids = createSortedById<{ id: bigint }>(2);
    for (const id of [5n, 1n, 3n]) ids.add({ id });
    ids.delete(2n);
    ids.delete(9n);
    expect(idsOf(ids.after(undefined, 10))).toEqual([1n, 3n, 5n]);
  });
});
