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
});
