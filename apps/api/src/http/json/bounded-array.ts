import { stringifyExactJson } from '@plant-store/domain';

/** A JSON array of the first `count` items, in at most the bytes it was allowed (or of one item alone). */
export interface BoundedArray {
  readonly text: string;
  readonly count: number;
}

// What JSON text can make of one UTF-16 unit of a string at most: `\u001f`, six bytes.
const MOST_BYTES_PER_UNIT = 6;

/**
 * The JSON text of the longest prefix of `items` whose array takes at most `maxBytes` of UTF-8, but
 * always of the first item, however large; bigints as exact integers. Never builds more text than
 * that plus one item. `sizeBound(item)` is a cheap upper bound of an item's JSON bytes: when the
 * bounds of all items fit, the array is written in one go.
 */
export function stringifyBoundedArray<T>(
  items: readonly T[],
  maxBytes: number,
  sizeBound: (item: T) => number,
): BoundedArray {
  let bound = 2 + Math.max(0, items.length - 1);
  for (const item of items) bound += sizeBound(item);
  if (bound <= maxBytes) return { text: stringifyExactJson(items), count: items.length };

  const parts: string[] = [];
  let bytes = 2;
  for (const item of items) {
    const part = stringifyExactJson(item);
    const size = Buffer.byteLength(part) + (parts.length > 0 ? 1 : 0);
    if (parts.length > 0 && bytes + size > maxBytes) break;
    parts.push(part);
    bytes += size;
  }
  return { text: `[${parts.join(',')}]`, count: parts.length };
}

/** An upper bound of the JSON bytes of a string: each UTF-16 unit escaped at worst, and its quotes. */
export function jsonStringBound(text: string): number {
  return MOST_BYTES_PER_UNIT * text.length + 2;
}
