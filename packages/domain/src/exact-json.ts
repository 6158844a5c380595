// JSON.rawJSON (Node.js 21+) puts text into JSON.stringify's output as it is: the only way to write an
// integer beyond 2^53 exactly. Not yet in TypeScript's lib; absent on Node.js 20, where this module
// still loads (the rest of the domain runs there) and only writing refuses.
const { rawJSON } = JSON as unknown as { rawJSON?: (text: string) => unknown };

function exactBigInt(_key: string, item: unknown): unknown {
  return typeof item === 'bigint' ? (rawJSON as (text: string) => unknown)(item.toString()) : item;
}

/**
 * JSON text of a value in which bigints (a plant's int64 id) are written as exact JSON integers,
 * digit for digit. Needs JSON.rawJSON: Node.js 21 or later.
 */
export function stringifyExactJson(value: unknown, space?: number): string {
  if (rawJSON === undefined) throw new Error('stringifyExactJson needs JSON.rawJSON: Node.js 21 or later');
  return JSON.stringify(value, exactBigInt, space);
}
