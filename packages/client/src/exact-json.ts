// JSON with exact integers. A plant id is an int64, and a JavaScript number is exact only up to 2^53:
// ids go out as bigints written digit for digit, and integers come back as bigints when a number
// could not hold them.
//
// A copy of the domain's stringifyExactJson on purpose: the published client imports nothing of the service.
// It must also refuse a runtime without the two features (below), and it reads differently: an
// integer a number holds exactly stays a number here, which is what its users expect of a JSON client.

// The third argument of a reviver ("JSON.parse source text access"): the number's own text.
interface ReviverContext {
  readonly source?: string;
}

// JSON.rawJSON puts text into JSON.stringify's output as it is.
const { rawJSON } = JSON as unknown as { rawJSON?: (text: string) => unknown };

function revealsSourceText(): boolean {
  let source: string | undefined;
  JSON.parse('1', (_key, value, context?: ReviverContext) => {
    source = context?.source;
    return value;
  });
  return source === '1';
}

// Both arrived with the V8 of Node.js 22 (and are in current browsers). Without them no int64 crosses
// JSON exactly, and a client that rounds ids would be worse than none: refuse to load, and say why.
// (Why not a JSON parser of our own for older runtimes: see the README.)
if (typeof rawJSON !== 'function' || !revealsSourceText()) {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  throw new Error(
    `@plant-store/client needs Node.js 22 or later, found ${node === undefined ? 'a runtime that is not Node.js' : `Node.js ${node}`}: ` +
      'it keeps int64 ids exact with JSON.rawJSON and the source text that JSON.parse gives a reviver, which this runtime lacks.',
  );
}
const writeRaw = rawJSON;

/** JSON.stringify in which a bigint is written as an exact JSON integer. */
export function stringifyExactJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? writeRaw(item.toString()) : item));
}

function reviveExactInteger(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined) return value;
  return /^-?(0|[1-9][0-9]*)$/.test(context.source) ? BigInt(context.source) : value;
}

/** JSON.parse in which an integer beyond what a number holds exactly (2^53) is an exact bigint. */
export function parseExactJson(text: string): unknown {
  return JSON.parse(text, reviveExactInteger as (this: unknown, key: string, value: unknown) => unknown);
}
