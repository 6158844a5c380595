// An int64 id or amount is exact in a double (what JSON.parse makes of a number) only up to 2^53.
// Numbers are read here from their source text instead, by index loops in one pass: a regular
// expression run on a client's 64 KB number can backtrack for seconds, and every request waits.

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

// An integer written plainly, up to 20 digits (the same bound as MAX_EXACT_DIGITS below).
const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]{0,19})$/;

// int64 has 19 digits. A whole number with more than 20 is surely outside it, and building it as a
// BigInt would only cost time and memory (think `1e999999999`).
const MAX_EXACT_DIGITS = 20;

// An exponent of 16 digits or more is beyond ±10^15, which no count of digits within a body can
// offset: it is taken as infinite instead of being read.
const MAX_EXPONENT_DIGITS = 15;

/** What the exact decimal value of a JSON number is: a whole number (as a bigint when small enough) or not. */
export type JsonNumberValue =
  | { readonly kind: 'integer'; readonly value: bigint }
  | { readonly kind: 'huge-integer' }
  | { readonly kind: 'fraction' };

/**
 * The code unit at `index`, or -1 past the end. Reading past the end through charCodeAt (NaN)
 * takes V8 off its fast path for that call site: a loop over digits ran four times slower.
 */
function codeAt(text: string, index: number): number {
  return index < text.length ? text.charCodeAt(index) : -1;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function skipDigits(source: string, from: number): number {
  let index = from;
  while (isDigit(codeAt(source, index))) index += 1;
  return index;
}

function notANumber(source: string): SyntaxError {
  return new SyntaxError(`not a JSON number: ${source.length > 40 ? `${source.slice(0, 40)}...` : source}`);
}

/** The exponent's value, from its digits; ±Infinity when it has too many to matter. */
function readExponent(source: string, start: number, end: number, negative: boolean): number {
  let first = start;
  while (first < end && codeAt(source, first) === ZERO) first += 1;
  const magnitude =
    end - first > MAX_EXPONENT_DIGITS ? Number.POSITIVE_INFINITY : Number(source.slice(first, end) || '0');
  return negative ? -magnitude : magnitude;
}

/**
 * Reads the exact decimal value of a JSON number from its source text, never through a double,
 * in time linear in its length. `7`, `7.0`, `7e0`, `700e-2` and `0.7e1` are the integer 7; `-0`
 * is 0; `1.5` and `4503599627370497.5` are fractions; `1e30` is a huge integer (more than 20
 * digits, left unbuilt). Throws a SyntaxError for text that is not one JSON number.
 */
export function readJsonNumber(source: string): JsonNumberValue {
  let index = codeAt(source, 0) === MINUS ? 1 : 0;
  const negative = index === 1;
  const wholeStart = index;
  index = skipDigits(source, index);
  const wholeEnd = index;
  if (wholeEnd === wholeStart || (codeAt(source, wholeStart) === ZERO && wholeEnd - wholeStart > 1))
    throw notANumber(source);
  let fractionStart = index;
  let fractionEnd = index;
  if (codeAt(source, index) === DOT) {
    fractionStart = index + 1;
    fractionEnd = skipDigits(source, fractionStart);
    if (fractionEnd === fractionStart) throw notANumber(source);
    index = fractionEnd;
  }
  let exponent = 0;
  const e = codeAt(source, index);
  if (e === LOWER_E || e === UPPER_E) {
    index += 1;
    const sign = codeAt(source, index);
    if (sign === MINUS || sign === PLUS) index += 1;
    const exponentStart = index;
    index = skipDigits(source, index);
    if (index === exponentStart) throw notANumber(source);
    exponent = readExponent(source, exponentStart, index, sign === MINUS);
  }
  if (index !== source.length) throw notANumber(source);

  // The digits of the whole part, then those of the fraction, as one sequence, read in place: a
  // string built from them would be read far slower, a character at a time.
  const wholeLength = wholeEnd - wholeStart;
  const count = wholeLength + (fractionEnd - fractionStart);
  const digitAt = (position: number): number =>
    codeAt(source, position < wholeLength ? wholeStart + position : fractionStart + position - wholeLength);
  let first = 0;
  while (first < count && digitAt(first) === ZERO) first += 1;
  if (first === count) return { kind: 'integer', value: 0n };
  let last = count - 1;
  while (digitAt(last) === ZERO) last -= 1;

  // The value is significant × 10^scale, and significant ends in a non-zero digit, so the value
  // is whole exactly when scale is not negative.
  const scale = exponent - (fractionEnd - fractionStart) + (count - 1 - last);
  if (scale < 0) return { kind: 'fraction' };
  if (last - first + 1 + scale > MAX_EXACT_DIGITS) return { kind: 'huge-integer' };
  let significant = '';
  for (let position = first; position <= last; position += 1)
    significant += String.fromCharCode(digitAt(position));
  const magnitude = BigInt(significant) * 10n ** BigInt(scale);
  return { kind: 'integer', value: negative ? -magnitude : magnitude };
}

/**
 * The value a JSON number is handed over as, decided from its source text alone, so that a validator
 * of int64 fields (a bigint in [-2^63, 2^63-1]) judges what the client wrote:
 * - a whole number of up to 20 digits: the exact bigint (one just beyond int64 is then out of range,
 *   like any other);
 * - a larger whole number: its double, out of any int64 range;
 * - a fraction: its double when that has a fractional part (`7.5`), else ±0.5. The nearest double
 *   of a fraction is whole beyond 2^52 (`4503599627370497.5`) and for `1.0000000000000000001` or
 *   `1e-400`: handing that over would turn a fraction into an integer. A fraction stays one.
 */
export function jsonNumberValue(source: string): number | bigint {
  // The usual case, a plain integer: BigInt reads its digits exactly, no need to take it apart.
  if (PLAIN_INTEGER.test(source)) return BigInt(source);
  const exact = readJsonNumber(source);
  if (exact.kind === 'integer') return exact.value;
  const nearest = Number(source);
  if (exact.kind === 'huge-integer' || !Number.isInteger(nearest)) return nearest;
  return codeAt(source, 0) === MINUS ? -0.5 : 0.5;
}
