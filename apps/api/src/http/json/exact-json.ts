// JSON with exact integers, the codec of the service's own JSON text (the body reader, shallow.ts,
// reads requests). An id is an int64, and a JavaScript number is exact only up to 2^53: bigints go
// out written digit for digit, and a reader can take every integer back as a bigint.
//
// @plant-store/client has its own copy (packages/client/src/exact-json.ts): it is published and
// imports nothing of the service, and it reads differently (integers a number holds exactly stay
// numbers there, for its users). The bench's baselines keep theirs too: a baseline is a plain
// node:http server and must not share the service's code.

// JSON.rawJSON (Node 21+) puts text into JSON.stringify's output as it is: the only way to write an
// integer beyond 2^53 exactly. Not yet in TypeScript's lib.
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/** JSON text of a value in which bigints are written as exact JSON integers. */
export function stringifyExactJson(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (_key, item) => (typeof item === 'bigint' ? rawJSON(item.toString()) : item),
    space,
  );
}

const INTEGER_TEXT = /^-?\d+$/;

/**
 * JSON.parse in which every number written as an integer is an exact bigint: the reviver gets each
 * number's source text (Node 22+). For documents read whole, as tests and tools read the service's.
 */
export function parseJsonWithBigInts(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && INTEGER_TEXT.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}
