// JSON with exact integers. A plant id is an int64, and a JavaScript number is exact only up to 2^53:
// ids go out as bigints written digit for digit, and integers come back as bigints when a number
// could not hold them.

// JSON.rawJSON (Node 21+, current browsers) puts text into JSON.stringify's output as it is.
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/** JSON.stringify in which a bigint is written as an exact JSON integer. */
export function stringifyExactJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? rawJSON(item.toString()) : item));
}

// The third argument of a reviver ("JSON.parse source text access", Node 22+): the number's own text.
interface ReviverContext {
  readonly source?: string;
}

function reviveExactInteger(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined) return value;
  return /^-?(0|[1-9][0-9]*)$/.test(context.source) ? BigInt(context.source) : value;
}

/** JSON.parse in which an integer beyond what a number holds exactly (2^53) is an exact bigint. */
export function parseExactJson(text: string): unknown {
  return JSON.parse(text, reviveExactInteger as (this: unknown, key: string, value: unknown) => unknown);
}
