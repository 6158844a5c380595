import { describe, expect, it } from 'vitest';
import { exactJsonNumber, parseJsonExact, readJsonNumber } from './json-exact.ts';

describe('readJsonNumber', () => {
  it.each([
    ['7', 7n],
    ['7.0', 7n],
    ['7e0', 7n],
    ['7E+0', 7n],
    ['700e-2', 7n],
    ['0.7e1', 7n],
    ['1.5e1', 15n],
    ['-0', 0n],
    ['-0.0e-5', 0n],
    ['0e999999999999', 0n],
    ['10E+2', 1000n],
    ['123.4560e3', 123456n],
    ['0.0001e4', 1n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807.000', 9223372036854775807n],
    ['92233720368547758.07e2', 9223372036854775807n],
    ['9223372036854775808', 9223372036854775808n],
    ['99999999999999999999', 99999999999999999999n],
  ])('when the source is %s, then it is the integer %s', (source, value) => {
    expect(readJsonNumber(source)).toEqual({ kind: 'integer', value });
  });

  it.each([
    '7.5',
    '0.1',
    '-1.0000000000000000001',
    '1e-1',
    '1e-400',
    '75e-1',
    '9223372036854775807.5',
    '1e-999999999999',
  ])('when the source is %s, then it is a fraction', (source) => {
    expect(readJsonNumber(source)).toEqual({ kind: 'fraction' });
  });

  it.each([
    '100000000000000000000',
    '1e20',
    '1e400',
    '1e999999999',
    '-1e999999999',
    `1e${'9'.repeat(400)}`,
    '12345678901234567890123',
  ])('when the source is %s, then it is a huge integer, left unbuilt', (source) => {
    expect(readJsonNumber(source)).toEqual({ kind: 'huge-integer' });
  });

  it('when the exponent is enormous, then it answers at once instead of building a huge BigInt', () => {
    const startedAt = performance.now();
    expect(readJsonNumber('1e999999999').kind).toBe('huge-integer');
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});

describe('exactJsonNumber', () => {
  it('when a fraction rounds to a whole double, then a fraction is still handed over', () => {
    expect(Number.isInteger(exactJsonNumber(1, '1.0000000000000000001'))).toBe(false);
    expect(Number.isInteger(exactJsonNumber(0, '1e-400'))).toBe(false);
    expect(exactJsonNumber(-0, '-1e-400')).toBeLessThan(0);
  });

  it('when a fraction is a fractional double, then the double is handed over as it is', () => {
    expect(exactJsonNumber(7.5, '7.5')).toBe(7.5);
  });

  it('when a huge integer is given, then its double is handed over', () => {
    expect(exactJsonNumber(Number.POSITIVE_INFINITY, '1e400')).toBe(Number.POSITIVE_INFINITY);
    expect(exactJsonNumber(1e20, '1e20')).toBe(1e20);
  });
});

describe('parseJsonExact', () => {
  it('when integers appear anywhere, then each one is an exact bigint', () => {
    expect(
      parseJsonExact('{"id":9223372036854775807,"list":[1,2.0,-3e0],"nested":{"n":9007199254740993}}'),
    ).toEqual({
      id: 9223372036854775807n,
      list: [1n, 2n, -3n],
      nested: { n: 9007199254740993n },
    });
  });

  it('when strings look like numbers, then they stay strings', () => {
    expect(parseJsonExact('{"id":"7","e":"1e3"}')).toEqual({ id: '7', e: '1e3' });
  });

  it('when values are not numbers, then they are as JSON.parse makes them', () => {
    expect(parseJsonExact('{"a":null,"b":true,"c":"x\\u0000y","d":[],"e":{}}')).toEqual({
      a: null,
      b: true,
      c: 'x\u0000y',
      d: [],
      e: {},
    });
  });

  it('when fractions appear, then they stay numbers', () => {
    expect(parseJsonExact('[0.5,-2.25,1e-3]')).toEqual([0.5, -2.25, 0.001]);
  });

  it('when the number is out of int64 range but short, then it is a bigint for the domain to refuse', () => {
    expect(parseJsonExact('-9223372036854775809')).toBe(-9223372036854775809n);
  });

  it.each([
    '',
    '{',
    '{} {}',
    '{"a":1} x',
    '/* c */ {}',
    "{'a':1}",
    '[1,]',
    '01',
    '1.',
    '.5',
    '+1',
    'NaN',
    'Infinity',
    '\uFEFF{}',
  ])('when the text is %j, then it throws a SyntaxError', (text) => {
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it('when the same key appears twice, then the last one wins, as in JSON.parse', () => {
    expect(parseJsonExact('{"id":1,"id":2}')).toEqual({ id: 2n });
  });
});
