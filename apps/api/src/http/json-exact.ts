// JSON.parse turns every number into a double, exact only up to 2^53, but a plant id is an int64.
// Node 24's JSON.parse hands a reviver each number's source text, from which integers are rebuilt exactly.

const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

// An integer written plainly, up to 20 digits (the same bound as MAX_EXACT_DIGITS below).
const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]{0,19})$/;

// int64 has 19 digits. A whole number with more than 20 is surely outside it, and building it as a
// BigInt would only cost time and memory (think `1e999999999`).
const MAX_EXACT_DIGITS = 20;

/** What the exact decimal value of a JSON number is: a whole number (as a bigint when small enough) or not. */
export type JsonNumberValue =
  | { readonly kind: 'integer'; readonly value: bigint }
  | { readonly kind: 'huge-integer' }
  | { readonly kind: 'fraction' };

/**
 * Reads the exact decimal value of a JSON number from its source text, never through a double.
 * `7`, `7.0`, `7e0`, `700e-2` and `0.7e1` are the integer 7; `-0` is 0; `1.5` is a fraction;
 * `1e30` is a huge integer (more than 20 digits, left unbuilt).
 */
export function readJsonNumber(source: string): JsonNumberValue {
  const match = JSON_NUMBER.exec(source);
  if (match === null) throw new SyntaxError('not a JSON number');
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  const digits = whole + fraction;
  const withoutTrailingZeros = digits.replace(/0+$/, '');
  const significant = withoutTrailingZeros.replace(/^0+/, '');
  if (significant === '') return { kind: 'integer', value: 0n };

  // The value is significant × 10^exponent, and significant ends in a non-zero digit, so the
  // value is whole exactly when the exponent is not negative.
  const exponent = Number(exponentText) - fraction.length + (digits.length - withoutTrailingZeros.length);
  if (exponent < 0) return { kind: 'fraction' };
  if (significant.length + exponent > MAX_EXACT_DIGITS) return { kind: 'huge-integer' };
  const magnitude = BigInt(significant) * 10n ** BigInt(exponent);
  return { kind: 'integer', value: sign === '-' ? -magnitude : magnitude };
}

/**
 * The value a JSON number is handed over as, given the double JSON.parse made of it:
 * - a whole number of up to 20 digits: the exact bigint (one just beyond int64 is then refused
 *   by the domain as out of range, with the same message as any other);
 * - a larger whole number: the double, which the domain refuses as out of range;
 * - a fraction: a number that is a fraction too. Where the nearest double is whole
 *   (`1.0000000000000000001`, `1e-400`), half is added so that the domain still sees, and
 *   refuses, a fraction instead of a silently rounded integer. Beyond 2^52 no fractional
 *   double exists; the domain refuses such a number as too large to be exact.
 */
export function exactJsonNumber(parsed: number, source: string): number | bigint {
  // The usual case, a plain integer: BigInt reads its digits exactly, no need to take it apart.
  if (PLAIN_INTEGER.test(source)) return BigInt(source);
  const exact = readJsonNumber(source);
  if (exact.kind === 'integer') return exact.value;
  if (exact.kind === 'huge-integer' || !Number.isInteger(parsed) || Math.abs(parsed) >= 2 ** 52)
    return parsed;
  return source.startsWith('-') ? parsed - 0.5 : parsed + 0.5;
}

// The third argument of a reviver (Node 22+, "JSON.parse source text access"); absent for objects and arrays.
interface ReviverContext {
  readonly source?: string;
}

type Reviver = (this: unknown, key: string, value: unknown) => unknown;

function reviveExactNumber(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return exactJsonNumber(value, context.source);
}

/**
 * JSON.parse in which every JSON number that is a whole number of up to 20 digits is an exact
 * bigint (see exactJsonNumber). Throws JSON.parse's SyntaxError for text that is not exactly one
 * JSON value.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, reviveExactNumber as Reviver);
}
