// JSON.parse builds every value of a text, and the reviver that kept integers exact cost a
// microsecond or two a value and recursed: a 60 KB body of thousands of small values cost tens of
// times a plain body of the same size, and one nested 2,300 deep overflowed the stack. This reader
// checks the whole text in one pass, without recursion, and builds only the few values its caller
// reads. Plain functions over (text, index), and one loop that reads each character of arrays and
// objects once: a second read showed in the cost of bodies made of brackets.
import { jsonNumberValue } from './exact.ts';

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// What each character after a backslash stands for, `u` aside: " \ / b f n r t.
const SHORT_ESCAPES = new Map([
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);

// A run of characters that a string holds as they are: no quote, backslash or control character.
// One character class, repeated: it cannot backtrack. Used for long runs, where it beats a loop.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must escape exactly these.
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const SHORT_RUN = 16;

/**
 * The code unit at `index`, or -1 past the end. Reading past the end through charCodeAt (NaN)
 * takes V8 off its fast path for that call site for good: any client could slow every later read.
 * Kept in this module (exact.ts has its own) so that V8 inlines it into the loops.
 */
function codeAt(text: string, index: number): number {
  return index < text.length ? text.charCodeAt(index) : -1;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function hexValue(code: number): number {
  if (code >= ZERO && code <= NINE) return code - ZERO;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function unexpected(text: string, index: number): SyntaxError {
  if (index >= text.length) return new SyntaxError(`unexpected end of the text at position ${index}`);
  return new SyntaxError(`unexpected character ${JSON.stringify(text[index])} at position ${index}`);
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  // Most tokens follow each other without any: one compare settles it.
  if (!(codeAt(text, index) <= SPACE)) return index;
  let code = codeAt(text, index);
  while (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB) {
    index += 1;
    code = codeAt(text, index);
  }
  return index;
}

/** The code unit an escape at `index` (its backslash) stands for; throws when it is not one. */
function escapedCodeUnit(text: string, index: number): number {
  const letter = codeAt(text, index + 1);
  if (letter !== LOWER_U) {
    const unit = SHORT_ESCAPES.get(letter);
    if (unit === undefined) throw unexpected(text, index + 1);
    return unit;
  }
  let unit = 0;
  for (let digit = 2; digit < 6; digit += 1) {
    const value = hexValue(codeAt(text, index + digit));
    if (value < 0) throw unexpected(text, index + digit);
    unit = unit * 16 + value;
  }
  return unit;
}

function escapeLength(text: string, index: number): number {
  return codeAt(text, index + 1) === LOWER_U ? 6 : 2;
}

/** Skips a string from its opening quote to just after its closing one. */
function skipString(text: string, from: number): number {
  let index = from + 1;
  let runStart = index;
  for (;;) {
    const code = codeAt(text, index);
    if (code === QUOTE) return index + 1;
    if (code === BACKSLASH) {
      escapedCodeUnit(text, index);
      index += escapeLength(text, index);
      runStart = index;
      continue;
    }
    // Control characters must be escaped; -1 is the end of the text.
    if (!(code >= SPACE)) throw unexpected(text, index);
    index += 1;
    if (index - runStart > SHORT_RUN) {
      PLAIN_RUN.lastIndex = index;
      PLAIN_RUN.test(text);
      index = PLAIN_RUN.lastIndex;
      runStart = index;
    }
  }
}

/** Skips one or more digits. */
function skipDigits(text: string, from: number): number {
  if (!isDigit(codeAt(text, from))) throw unexpected(text, from);
  let index = from + 1;
  while (isDigit(codeAt(text, index))) index += 1;
  return index;
}

/** Skips a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
function skipNumber(text: string, from: number): number {
  let index = from;
  if (codeAt(text, index) === MINUS) index += 1;
  index = codeAt(text, index) === ZERO ? index + 1 : skipDigits(text, index);
  if (codeAt(text, index) === DOT) index = skipDigits(text, index + 1);
  const e = codeAt(text, index);
  if (e === LOWER_E || e === UPPER_E) {
    index += 1;
    const sign = codeAt(text, index);
    if (sign === PLUS || sign === MINUS) index += 1;
    index = skipDigits(text, index);
  }
  return index;
}

function skipWord(text: string, from: number, word: string): number {
  for (let offset = 0; offset < word.length; offset += 1) {
    if (codeAt(text, from + offset) !== word.charCodeAt(offset)) throw unexpected(text, from + offset);
  }
  return from + word.length;
}

function skipScalar(text: string, index: number): number {
  const code = codeAt(text, index);
  if (code === QUOTE) return skipString(text, index);
  if (code === MINUS || isDigit(code)) return skipNumber(text, index);
  if (code === LOWER_T) return skipWord(text, index, 'true');
  if (code === LOWER_F) return skipWord(text, index, 'false');
  if (code === LOWER_N) return skipWord(text, index, 'null');
  throw unexpected(text, index);
}

// What the reader expects next inside arrays and objects.
const EXPECT_VALUE = 0; // a value (after `:` or `,` in an array)
const AFTER_OPEN_BRACKET = 1; // a value or `]` (just after `[`)
const AFTER_OPEN_BRACE = 2; // a name or `}` (just after `{`)
const EXPECT_NAME = 3; // a name (after `,` in an object)
const BEFORE_COLON = 4; // the `:` after a name
const AFTER_VALUE = 5; // `,` or the bracket that closes the container (after a value)

/**
 * Skips one value starting at `from` (after any whitespace) and returns the index just after it.
 * One loop reads each character of the structure once, with a state for what may come next;
 * arrays and objects are tracked on a stack of the brackets they must close with (`closers`, one
 * byte a level) rather than by recursion, so that no depth can overflow the call stack.
 */
function skipValue(text: string, from: number, closers: Uint8Array): number {
  let depth = 0;
  let closer = 0;
  let state = EXPECT_VALUE;
  let index = from;
  for (;;) {
    const code = codeAt(text, index);
    // One compare for the usual character; what is below it and not whitespace (a control
    // character, or -1 at the end) is refused by every state below.
    if (code <= SPACE && (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB)) {
      index += 1;
      continue;
    }
    if (state === AFTER_VALUE) {
      if (code === COMMA) {
        state = closer === CLOSE_BRACE ? EXPECT_NAME : EXPECT_VALUE;
        index += 1;
        continue;
      }
      if (code !== closer) throw unexpected(text, index);
    } else if (state === EXPECT_NAME || state === AFTER_OPEN_BRACE) {
      if (code === QUOTE) {
        index = skipString(text, index);
        state = BEFORE_COLON;
        continue;
      }
      if (state === EXPECT_NAME || code !== CLOSE_BRACE) throw unexpected(text, index);
    } else if (state === BEFORE_COLON) {
      if (code !== COLON) throw unexpected(text, index);
      state = EXPECT_VALUE;
      index += 1;
      continue;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      closers[depth] = closer;
      depth += 1;
      closer = code === OPEN_BRACKET ? CLOSE_BRACKET : CLOSE_BRACE;
      state = code === OPEN_BRACKET ? AFTER_OPEN_BRACKET : AFTER_OPEN_BRACE;
      index += 1;
      continue;
    } else if (state === EXPECT_VALUE || code !== CLOSE_BRACKET) {
      index = skipScalar(text, index);
      if (depth === 0) return index;
      state = AFTER_VALUE;
      continue;
    }
    // The closing bracket of the innermost container.
    index += 1;
    depth -= 1;
    if (depth === 0) return index;
    closer = closers[depth] ?? 0;
    state = AFTER_VALUE;
  }
}

/**
 * Whether the string at [start, end) (quotes included) is `name`, escapes decoded on the way:
 * no string is built for the thousands of names a body may hold.
 */
function isName(text: string, start: number, end: number, name: string): boolean {
  let index = start + 1;
  let offset = 0;
  const last = end - 1;
  while (index < last) {
    if (offset === name.length) return false;
    let unit = codeAt(text, index);
    if (unit === BACKSLASH) {
      unit = escapedCodeUnit(text, index);
      index += escapeLength(text, index);
    } else {
      index += 1;
    }
    if (unit !== name.charCodeAt(offset)) return false;
    offset += 1;
  }
  return offset === name.length;
}

/** The value of a checked span: scalars as JSON.parse builds them (numbers exact), containers empty. */
function build(text: string, start: number, end: number): unknown {
  switch (codeAt(text, start)) {
    case QUOTE: {
      const content = text.slice(start + 1, end - 1);
      return content.includes('\\') ? JSON.parse(text.slice(start, end)) : content;
    }
    case OPEN_BRACE:
      return {};
    case OPEN_BRACKET:
      return [];
    case LOWER_T:
      return true;
    case LOWER_F:
      return false;
    case LOWER_N:
      return null;
    default:
      return jsonNumberValue(text.slice(start, end));
  }
}

/** The names to build, and the lengths their JSON spelling can have. */
interface Wanted {
  readonly names: readonly string[];
  readonly shortest: number;
  readonly longest: number;
}

// Worked out once per set of names (jsonBody passes one set for every request).
const wantedBySet = new WeakMap<ReadonlySet<string>, Wanted>();

function wantedOf(members: ReadonlySet<string>): Wanted {
  let wanted = wantedBySet.get(members);
  if (wanted === undefined) {
    const names = [...members];
    // A name of n characters is written in n to 6n (all `\uXXXX`): others need no look.
    wanted = {
      names,
      shortest: Math.min(...names.map((name) => name.length)),
      longest: 6 * Math.max(...names.map((name) => name.length)),
    };
    wantedBySet.set(members, wanted);
  }
  return wanted;
}

/** A top-level object: the members named in `names` built, the others checked and skipped. */
function readTopObject(
  text: string,
  from: number,
  { names, shortest, longest }: Wanted,
  closers: Uint8Array,
): { object: Record<string, unknown>; end: number } {
  // Of a name given twice, as in JSON.parse, the last value counts and the name keeps its first place.
  const found = new Map<string, { start: number; end: number }>();
  let index = skipWhitespace(text, from + 1);
  if (codeAt(text, index) === CLOSE_BRACE) return { object: {}, end: index + 1 };
  for (;;) {
    index = skipWhitespace(text, index);
    if (codeAt(text, index) !== QUOTE) throw unexpected(text, index);
    const nameStart = index;
    const nameEnd = skipString(text, index);
    index = skipWhitespace(text, nameEnd);
    if (codeAt(text, index) !== COLON) throw unexpected(text, index);
    const start = skipWhitespace(text, index + 1);
    index = skipValue(text, start, closers);
    const length = nameEnd - nameStart - 2;
    if (length >= shortest && length <= longest) {
      for (const name of names) {
        if (isName(text, nameStart, nameEnd, name)) found.set(name, { start, end: index });
      }
    }
    index = skipWhitespace(text, index);
    const code = codeAt(text, index);
    if (code !== COMMA && code !== CLOSE_BRACE) throw unexpected(text, index);
    index += 1;
    if (code === CLOSE_BRACE) break;
  }
  // Own properties whatever the names (`__proto__` included), as JSON.parse makes them.
  const object: Record<string, unknown> = {};
  for (const [name, span] of found) {
    const value = build(text, span.start, span.end);
    if (name === '__proto__') {
      Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
    } else object[name] = value;
  }
  return { object, end: index };
}

/**
 * Reads one JSON text, as strictly as JSON.parse (RFC 8259: one value, no comments, no trailing
 * commas), in time linear in its length whatever its shape or depth, building only what a reader
 * of one flat object needs:
 * - of a top-level object, the members named in `members` (of a name given twice, the last);
 *   the others are checked, not built;
 * - strings, true, false and null as JSON.parse builds them; numbers as jsonNumberValue reads them
 *   from their source text (integers exact bigints, fractions never whole);
 * - an array or object below the top level, or a top-level array, as an empty one of its kind.
 * Throws a SyntaxError naming the position of the first error.
 */
export function parseJsonShallow(text: string, members: ReadonlySet<string>): unknown {
  // Nesting cannot go deeper than the text is long.
  const closers = new Uint8Array(text.length);
  const start = skipWhitespace(text, 0);
  let value: unknown;
  let end: number;
  if (codeAt(text, start) === OPEN_BRACE && members.size > 0) {
    ({ object: value, end } = readTopObject(text, start, wantedOf(members), closers));
  } else {
    end = skipValue(text, start, closers);
    value = build(text, start, end);
  }
  end = skipWhitespace(text, end);
  if (end !== text.length) throw unexpected(text, end);
  return value;
}
