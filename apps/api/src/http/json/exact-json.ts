// JSON read with exact integers, for documents read whole (tests and tools read the service's
// answers and its OpenAPI document with it). Writing is the domain's stringifyExactJson; requests
// are read by the body reader, shallow.ts.

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
