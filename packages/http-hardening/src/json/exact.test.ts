import { describe, expect, it } from 'vitest';
import { callInWorker } from '../../test/support/run-in-worker.ts';
import { jsonNumberValue, readJsonNumber } from './exact.ts';

const MODULE = new URL('./exact.ts', import.meta.url);

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
    ['4503599627370497.0', 4503599627370497n],
    ['45035996273704970e-1', 4503599627370497n],
    ['-0.0', 0n],
    ['0.000e-7', 0n],
    ['1e+00000000000000000000000000000019', 10000000000000000000n],
    [`0.${'0'.repeat(500)}1e501`, 1n],
    [`1${'0'.repeat(18)}.${'0'.repeat(1000)}`, 10n ** 18n],
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
    '4503599627370497.5',
    '-4503599627370497.5',
    '45035996273704975e-1',
    '4503599627370497.50',
    '9007199254740993.5',
    '1.0000000000000000001',
    '123456789012345678901234567890.5',
    `1e-${'9'.repeat(400)}`,
    `1.${'0'.repeat(1000)}1`,
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

  it.each(['', '-', '01', '1.', '.5', '+1', '1e', '1e+', '1.5.5', '0x10', '1 ', 'NaN', '١'])(
    'when the source is %j, then it is not a JSON number',
    (source) => {
      expect(() => readJsonNumber(source)).toThrow(SyntaxError);
    },
  );

  // Trailing zeros used to be cut by a regular expression that backtracked over every zero: a
  // 64 KB number held the event loop for seconds, and a 1 MB one (BODY_LIMIT=1mb) for an hour.
  it.each([
    ['digits', `1${'0'.repeat(1_000_000)}1`, { kind: 'huge-integer' }],
    ['fraction digits', `1.${'0'.repeat(1_000_000)}1`, { kind: 'fraction' }],
    ['trailing fraction zeros', `7.${'0'.repeat(1_000_000)}`, { kind: 'integer', value: 7n }],
    ['exponent digits', `1e-${'0'.repeat(1_000_000)}1`, { kind: 'fraction' }],
  ])('when a number has a million %s, then it is read at all within 20 s', async (_what, source, kind) => {
    await expect(callInWorker(MODULE, 'readJsonNumber', [source], 20_000)).resolves.toEqual(kind);
  });
});

describe('jsonNumberValue', () => {
  it.each([
    ['1.0000000000000000001', 0.5],
    ['1e-400', 0.5],
    ['-1e-400', -0.5],
    ['4503599627370497.5', 0.5],
    ['-4503599627370497.5', -0.5],
    ['45035996273704975e-1', 0.5],
    ['4503599627370495.9999999', 0.5],
    ['9223372036854775807.5', 0.5],
  ])(
    'when the fraction %s has a whole nearest double, then a fraction (%s) is handed over',
    (source, value) => {
      expect(jsonNumberValue(source)).toBe(value);
    },
  );

  it('when a fraction is a fractional double, then the double is handed over as it is', () => {
    expect(jsonNumberValue('7.5')).toBe(7.5);
    expect(jsonNumberValue('-2.25e0')).toBe(-2.25);
  });

  it('when a huge integer is given, then its double is handed over', () => {
    expect(jsonNumberValue('1e400')).toBe(Number.POSITIVE_INFINITY);
    expect(jsonNumberValue('-1e400')).toBe(Number.NEGATIVE_INFINITY);
    expect(jsonNumberValue('1e20')).toBe(1e20);
  });

  it('when an integer is given in any spelling, then its exact bigint is handed over', () => {
    expect(jsonNumberValue('9223372036854775807')).toBe(9223372036854775807n);
    expect(jsonNumberValue('4503599627370497.000')).toBe(4503599627370497n);
    expect(jsonNumberValue('-0')).toBe(0n);
  });
});
