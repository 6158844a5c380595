// JSON spellings of numbers for property tests: every way RFC 8259 lets a client write a given
// decimal value (point, exponent, trailing zeros, leading zeros after the point, either case of
// `e`, an explicit `+`), so that exactness is tested on the source text, not on one spelling.
import fc from 'fast-check';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A decimal value written as digits with the point `scale` places from the right (scale >= 0). */
interface Decimal {
  readonly negative: boolean;
  /** The digits, without sign; at least one. */
  readonly digits: string;
  /** How many of the digits are after the point. */
  readonly scale: number;
}

/** Spellings of one decimal value, picked by the arbitrary. */
function spellings(decimal: Decimal): fc.Arbitrary<string> {
  const { negative, digits, scale } = decimal;
  const sign = negative ? '-' : '';
  const padded = digits.padStart(scale + 1, '0');
  const whole = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(padded.length - scale);
  const e = fc.constantFrom('e', 'E');
  const plusOrNone = fc.constantFrom('', '+');
  return fc.oneof(
    // 123.4500: the point form, with trailing zeros.
    fc
      .nat(4)
      .map((zeros) =>
        fraction === '' && zeros === 0
          ? `${sign}${whole}`
          : `${sign}${whole}.${fraction}${'0'.repeat(zeros)}`,
      ),
    // 1234500e-4: all digits (no zeros after a lone 0: JSON has no leading zeros), then an exponent.
    fc.tuple(fc.nat(4), e).map(([extra, letter]) => {
      const zeros = digits === '0' ? 0 : extra;
      return `${sign}${digits}${'0'.repeat(zeros)}${letter}-${scale + zeros}`;
    }),
    // 0.0012345e+3: every digit after the point, then an exponent of either sign.
    fc.tuple(fc.nat(3), e, plusOrNone).map(([zeros, letter, plus]) => {
      const exponent = digits.length - scale + zeros;
      return `${sign}0.${'0'.repeat(zeros)}${digits}${letter}${exponent < 0 ? exponent : `${plus}${exponent}`}`;
    }),
  );
}

/** The decimal digits of a non-negative bigint, with `scale` of them after the point. */
function decimal(negative: boolean, magnitude: bigint, scale: number): Decimal {
  return { negative, digits: magnitude.toString(), scale };
}

/**
 * JSON numbers with a non-zero fractional part, of any size: near 2^52 and 2^53 (where no double
 * has a fraction), within and beyond int64, and below 1.
 */
export const fractionSourceArbitrary: fc.Arbitrary<string> = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.bigInt({ min: 0n, max: 10n }),
      fc.bigInt({ min: 2n ** 52n - 10n, max: 2n ** 53n + 10n }),
      fc.bigInt({ min: 0n, max: INT64_MAX }),
      fc.bigInt({ min: INT64_MAX - 10n, max: 2n ** 70n }),
    ),
    fc.integer({ min: 1, max: 25 }),
    fc.bigInt({ min: 1n, max: 10n ** 25n - 1n }),
  )
  .chain(([negative, whole, scale, rawFraction]) => {
    // A fraction of `scale` digits that is not zero: the value is whole + fraction / 10^scale.
    const unit = 10n ** BigInt(scale);
    const fraction = (rawFraction % (unit - 1n)) + 1n;
    return spellings(decimal(negative, whole * unit + fraction, scale));
  });

/** Whole numbers in int64, each with its value, in any spelling (`7`, `7.000`, `700e-2`, `0.7E+1`). */
export const int64SourceArbitrary: fc.Arbitrary<{ readonly source: string; readonly value: bigint }> = fc
  .tuple(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.nat(3))
  .chain(([value, scale]) => {
    const magnitude = value < 0n ? -value : value;
    return spellings(decimal(value < 0n, magnitude * 10n ** BigInt(scale), scale)).map((source) => ({
      source,
      value,
    }));
  });
