import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyExactJson } from './exact-json.ts';
import { INT64_MAX, INT64_MIN } from './plant.ts';

describe('stringifyExactJson', () => {
  it('when a plant has an int64 id beyond 2^53, then its JSON holds the id digit for digit', () => {
    expect(stringifyExactJson({ id: 9007199254740993n, name: 'Fern' })).toBe(
      '{"id":9007199254740993,"name":"Fern"}',
    );
    expect(stringifyExactJson([INT64_MIN, INT64_MAX])).toBe('[-9223372036854775808,9223372036854775807]');
  });

  it("when a value holds no bigint, then its JSON is JSON.stringify's, indentation included", () => {
    const value = { name: 'Fern', tag: undefined, sizes: [1, 2.5, null], nested: { ok: true } };
    expect(stringifyExactJson(value)).toBe(JSON.stringify(value));
    expect(stringifyExactJson(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it('when any int64 is written, then reading its text back gives the same integer (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (id) => {
        expect(BigInt(stringifyExactJson(id))).toBe(id);
      }),
      { numRuns: 1000 },
    );
  });
});
