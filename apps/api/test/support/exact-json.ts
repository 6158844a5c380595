// JSON read with exact integers, for the tests that read the service's answers and its OpenAPI
// document whole. Writing is the domain's stringifyExactJson; requests are read by
// @plant-store/http-hardening's parseJsonShallow.

const INTEGER_TEXT = /^-?\d+$/;

/**
 * JSON.parse in which every number written as an integer is an exact bigint: the reviver gets each
 * number's source text (Node 22+).
 */
export function parseJsonWithBigInts(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && INTEGER_TEXT.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}
