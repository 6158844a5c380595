import { describe, expect, it } from 'vitest';
import { fitsSomeSerialOrder } from './serial-order.ts';

const fern = { name: 'Fern' };
const palm = { name: 'Palm', tag: '' };

describe('fitsSomeSerialOrder', () => {
  it('when a delete and an insert both succeed on a stored plant, then only "delete, then insert" fits, ending with the new plant', () => {
    const answered = [
      { kind: 'insert', content: palm, answer: { inserted: true } },
      { kind: 'delete', answer: true },
    ] as const;
    expect(fitsSomeSerialOrder(fern, answered, palm)).toBe(true);
    expect(fitsSomeSerialOrder(fern, answered, undefined)).toBe(false);
  });

  it('when an insert reports the old plant and the delete succeeds, then "insert, then delete" fits, ending empty', () => {
    const answered = [
      { kind: 'insert', content: palm, answer: { inserted: false, existing: { id: 1n, ...fern } } },
      { kind: 'delete', answer: true },
    ] as const;
    expect(fitsSomeSerialOrder(fern, answered, undefined)).toBe(true);
    expect(fitsSomeSerialOrder(fern, answered, fern)).toBe(false);
  });

  it('when two deletes of one plant both answer true, then no order fits', () => {
    const answered = [
      { kind: 'delete', answer: true },
      { kind: 'delete', answer: true },
    ] as const;
    expect(fitsSomeSerialOrder(fern, answered, undefined)).toBe(false);
  });

  it('when an insert reports a plant that no order could have left there, then no order fits', () => {
    const answered = [
      { kind: 'delete', answer: true },
      { kind: 'insert', content: fern, answer: { inserted: false, existing: { id: 1n, ...palm } } },
    ] as const;
    expect(fitsSomeSerialOrder(fern, answered, undefined)).toBe(false);
  });

  it('when an empty tag is reported where no tag was stored, then no order fits', () => {
    const answered = [
      {
        kind: 'insert',
        content: fern,
        answer: { inserted: false, existing: { id: 1n, name: 'Fern', tag: '' } },
      },
    ] as const;
    expect(fitsSomeSerialOrder(fern, answered, fern)).toBe(false);
  });

  it("when two updates expecting the stored content both answer updated, then no order fits; one refused with the other's plant fits", () => {
    const won = {
      kind: 'update',
      change: { name: 'Palm' },
      expected: fern,
      answer: { outcome: 'updated', plant: { id: 1n, name: 'Palm' } },
    } as const;
    const alsoWon = {
      kind: 'update',
      change: { tag: 'x' },
      expected: fern,
      answer: { outcome: 'updated', plant: { id: 1n, name: 'Fern', tag: 'x' } },
    } as const;
    expect(fitsSomeSerialOrder(fern, [won, alsoWon], { name: 'Palm', tag: 'x' })).toBe(false);
    const refused = {
      ...alsoWon,
      answer: { outcome: 'precondition-failed', current: { id: 1n, name: 'Palm' } },
    } as const;
    expect(fitsSomeSerialOrder(fern, [won, refused], { name: 'Palm' })).toBe(true);
    // Refused with a content no order left there.
    const refusedWrongly = {
      ...alsoWon,
      answer: { outcome: 'precondition-failed', current: { id: 1n, ...fern } },
    } as const;
    expect(fitsSomeSerialOrder(fern, [won, refusedWrongly], { name: 'Palm' })).toBe(false);
  });

  it('when updates without a precondition race, then the order decides what each answers: a patch never undoes another member', () => {
    const rename = {
      kind: 'update',
      change: { name: 'Palm' },
      answer: { outcome: 'updated', plant: { id: 1n, name: 'Palm', tag: 'x' } },
    } as const;
    const retag = {
      kind: 'update',
      change: { tag: 'x' },
      answer: { outcome: 'updated', plant: { id: 1n, name: 'Fern', tag: 'x' } },
    } as const;
    expect(fitsSomeSerialOrder(fern, [rename, retag], { name: 'Palm', tag: 'x' })).toBe(true);
    expect(fitsSomeSerialOrder(fern, [rename, retag], { name: 'Fern', tag: 'x' })).toBe(false);
  });

  it('when a conditional delete answers false on a plant that held its content throughout, then no order fits', () => {
    const answered = [{ kind: 'delete', expected: fern, answer: false }] as const;
    expect(fitsSomeSerialOrder(fern, answered, fern)).toBe(false);
    expect(fitsSomeSerialOrder(palm, answered, palm)).toBe(true);
  });

  it('when an update of an absent plant answers anything but absent, then no order fits', () => {
    const answered = [
      {
        kind: 'update',
        change: { name: 'Palm' },
        expected: 'any',
        answer: { outcome: 'updated', plant: { id: 1n, name: 'Palm' } },
      },
    ] as const;
    expect(fitsSomeSerialOrder(undefined, answered, { name: 'Palm' })).toBe(false);
    expect(
      fitsSomeSerialOrder(undefined, [{ ...answered[0], answer: { outcome: 'absent' } }], undefined),
    ).toBe(true);
  });
});
