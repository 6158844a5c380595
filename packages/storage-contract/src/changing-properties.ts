import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExpectedContent, NewPlant, PlantChange, PlantRepository } from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import fc from 'fast-check';
import { expect } from 'vitest';
import { type Answered, type Content, fitsSomeSerialOrder } from './serial-order.ts';

/** Contents that differ only slightly: the same name with no, empty and other tags. */
const CONTENTS: readonly Content[] = [
  { name: 'Fern' },
  { name: 'Fern', tag: '' },
  { name: 'Fern', tag: 'x' },
  { name: 'Palm' },
];

const CHANGES: readonly PlantChange[] = [
  {},
  { name: 'Palm' },
  { name: 'Fern' },
  { tag: null },
  { tag: '' },
  { tag: 'x' },
  { name: 'Fern', tag: null },
  { name: 'Palm', tag: '' },
];

const expectedArbitrary: fc.Arbitrary<ExpectedContent | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant('any' as const),
  fc.constantFrom(...CONTENTS),
);

const operationArbitrary = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), content: fc.constantFrom(...CONTENTS) }),
  fc.record({ kind: fc.constant('delete' as const), expected: expectedArbitrary }),
  {
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      change: fc.constantFrom(...CHANGES),
      expected: expectedArbitrary,
    }),
    weight: 3,
  },
);
type Operation = typeof operationArbitrary extends fc.Arbitrary<infer T> ? T : never;

// Turns of the event loop to wait before starting, so that operations start while others run.
const batchArbitrary = fc.array(fc.record({ operation: operationArbitrary, turns: fc.nat(3) }), {
  minLength: 1,
  maxLength: 4,
});

function show(value: unknown): string {
  return (
    JSON.stringify(value, (_, inner: unknown) => (typeof inner === 'bigint' ? `${inner}` : inner)) ??
    'nothing'
  );
}

async function run(plants: PlantRepository, id: bigint, operation: Operation): Promise<Answered> {
  switch (operation.kind) {
    case 'insert':
      return { ...operation, answer: await plants.insertIfAbsent({ id, ...operation.content }) };
    case 'delete':
      return { ...operation, answer: await plants.deleteById(id, operation.expected) };
    case 'update':
      return { ...operation, answer: await plants.update(id, operation.change, operation.expected) };
  }
}

/**
 * Property: batches of inserts, updates (with no, `'any'` or a given expected content) and deletes (as
 * well) of one id, each batch started at once, answer as if the store had run each batch one operation
 * at a time in some order, and leave what that order leaves; the next batch starts from what is found.
 */
export async function checkChangesAgainstModel(plants: PlantRepository, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.option(fc.constantFrom(...CONTENTS), { nil: undefined }),
      fc.array(batchArbitrary, { minLength: 1, maxLength: 6 }),
      async (initial, batches) => {
        const id = randomPlantId();
        if (initial !== undefined) await plants.insertIfAbsent({ id, ...initial });
        let state = initial;
        for (const batch of batches) {
          const answered = await Promise.all(
            batch.map(async ({ operation, turns }) => {
              for (let turn = 0; turn < turns; turn += 1) await nextTurn();
              return run(plants, id, operation);
            }),
          );
          const found = await plants.findById(id);
          const final = found && (({ id: _, ...content }: NewPlant) => content)(found);
          expect(
            fitsSomeSerialOrder(state, answered, final),
            `no serial order of ${show(answered)} from ${show(state)} ends in ${show(final)}`,
          ).toBe(true);
          state = final;
        }
      },
    ),
    { numRuns },
  );
}
