// Entity-tag lists as If-Match and If-None-Match carry them (RFC 9110 sections 8.8.3 and 13.1), and the
// two comparisons of section 8.8.3.2. `fresh` (what Koa's ctx.fresh uses) splits on commas and compares
// weakly only: If-Match needs the strong comparison, and a list that is not one must match nothing.

/** One entity-tag of a list: its opaque-tag with the quotes (`"xyz"`), and whether it came with `W/`. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** `*` (any current representation), or the entity-tags of the list in order, maybe none. */
export type EntityTagList = '*' | readonly EntityTag[];

const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** etagc: %x21 / %x23-7E / obs-text (%x80-FF, as Node hands header bytes over: one char each). */
function isEtagChar(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

const isWhitespace = (code: number): boolean => code === SPACE || code === TAB;

function skipWhitespace(field: string, from: number): number {
  let at = from;
  while (at < field.length && isWhitespace(field.charCodeAt(at))) at += 1;
  return at;
}

/** Whether the field is `*` alone, whitespace around it aside. */
function isStar(field: string, start: number): boolean {
  let end = field.length;
  while (end > start && isWhitespace(field.charCodeAt(end - 1))) end -= 1;
  return end === start + 1 && field.charCodeAt(start) === 0x2a;
}

/**
 * Reads a field value of `"*" / #entity-tag`, in one pass: `*` alone, or a comma-separated list whose empty
 * elements are skipped (RFC 9110 section 5.6.1). Undefined when the text is neither: such a field matches
 * nothing. Two header lines are read as one list joined by `, ` (as Node joins them).
 */
export function parseEntityTagList(field: string): EntityTagList | undefined {
  const start = skipWhitespace(field, 0);
  if (isStar(field, start)) return '*';
  const tags: EntityTag[] = [];
  let at = start;
  while (at < field.length) {
    const code = field.charCodeAt(at);
    if (code === COMMA) {
      at = skipWhitespace(field, at + 1);
      continue;
    }
    let weak = false;
    if (code === 0x57 && field.charCodeAt(at + 1) === 0x2f) {
      // `W/`, case-sensitive.
      weak = true;
      at += 2;
    }
    if (field.charCodeAt(at) !== QUOTE) return undefined;
    const open = at;
    at += 1;
    while (at < field.length && isEtagChar(field.charCodeAt(at))) at += 1;
    if (field.charCodeAt(at) !== QUOTE) return undefined;
    at += 1;
    tags.push({ weak, opaque: field.slice(open, at) });
    at = skipWhitespace(field, at);
    if (at < field.length && field.charCodeAt(at) !== COMMA) return undefined;
  }
  return tags;
}

/**
 * The strong comparison (If-Match): `current` (a strong entity-tag, quotes included) is in the list as a
 * strong entity-tag; `*` matches any. A list that could not be read matches nothing.
 */
export function matchesStrongly(list: EntityTagList | undefined, current: string): boolean {
  if (list === '*') return true;
  return list?.some((tag) => !tag.weak && tag.opaque === current) ?? false;
}

/**
 * The weak comparison (If-None-Match): `current` is in the list, with or without `W/`; `*` matches any. A
 * list that could not be read matches nothing.
 */
export function matchesWeakly(list: EntityTagList | undefined, current: string): boolean {
  if (list === '*') return true;
  return list?.some((tag) => tag.opaque === current) ?? false;
}
