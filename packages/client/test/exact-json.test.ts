import { describe, expect, it } from 'vitest';
import { parseExactJson, stringifyExactJson } from '../src/exact-json.ts';

describe('exact JSON', () => {
  it.each([
    [9223372036854775807n, '9223372036854775807'],
    [-9223372036854775808n, '-9223372036854775808'],
    [9007199254740993n, '9007199254740993'],
    [0n, '0'],
  ])('when the bigint %s is written, then its JSON is the exact digits %s', (id, digits) => {
    expect(stringifyExactJson({ id, name: 'a' })).toBe(`{"id":${digits},"name":"a"}`);
  });

  it('when integers beyond 2^53 are read, then they are exact bigints; smaller numbers stay numbers', () => {
    expect(
      parseExactJson('{"a":9223372036854775807,"b":-9007199254740993,"c":400,"d":1.5,"e":1e300}'),
    ).toEqual({
      a: 9223372036854775807n,
      b: -9007199254740993n,
      c: 400,
      d: 1.5,
      e: 1e300,
    });
  });
});
