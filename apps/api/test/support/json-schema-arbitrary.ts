import fc from 'fast-check';

type Schema = Record<string, unknown>;

// Annotations: they say nothing about which instances are valid.
const ANNOTATIONS = new Set(['description', 'examples', 'title', 'x-refused-when']);
const INT_FORMATS: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Any string at all: every UTF-16 code unit, the NUL character and lone surrogates included. */
export const anyString = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '"', '\\'),
  ),
  maxLength: 20,
});

/** Any JSON value, as an unknown field's value; integers as bigints, like the exact parser makes them. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.bigInt(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    anyString,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, part) => (node as Schema | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')],
      root,
    );
  if (target === undefined) throw new Error(`unresolved reference ${ref}`);
  return resolve(target as Schema, root);
}

/** allOf of object schemas, as one object schema: the properties and the required names of all. */
function mergeAllOf(schema: Schema, root: Schema): Schema {
  const parts = [
    { ...schema, allOf: undefined },
    ...(schema.allOf as Schema[]).map((part) => resolve(part, root)),
  ];
  const merged: Schema = { type: 'object', properties: {}, required: [] };
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (value === undefined || ANNOTATIONS.has(key) || key === 'allOf') continue;
      if (key === 'type' && value === 'object') continue;
      if (key === 'properties') Object.assign(merged.properties as Schema, value);
      else if (key === 'required') (merged.required as string[]).push(...(value as string[]));
      else if (key === 'allOf') continue;
      else throw new Error(`allOf with "${key}" is not supported by this generator`);
    }
  }
  return merged;
}

function checkKeywords(schema: Schema, known: readonly string[]): void {
  for (const key of Object.keys(schema))
    if (!ANNOTATIONS.has(key) && !known.includes(key))
      throw new Error(
        `the keyword "${key}" is not supported by this generator: teach it, or the test proves nothing`,
      );
}

/**
 * Instances of a JSON Schema (the subset the two documents use: $ref, allOf, object, integer with
 * an int format and a range, string, const), generated without filtering: every instance the schema
 * accepts can come out, unknown object fields included. Integers are bigints. An unknown keyword
 * throws, so that the generator cannot silently produce too narrow a set.
 */
export function arbitraryOf(schemaOrRef: Schema, root: Schema): fc.Arbitrary<unknown> {
  let schema = resolve(schemaOrRef, root);
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, root);
  if ('const' in schema) {
    checkKeywords(schema, ['const', 'type']);
    return fc.constant(schema.const);
  }
  switch (schema.type) {
    case 'object': {
      checkKeywords(schema, ['type', 'properties', 'required']);
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      for (const name of required)
        if (!(name in properties)) throw new Error(`required "${name}" has no schema: not supported`);
      const known = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, arbitraryOf(sub, root)])),
        { requiredKeys: required },
      );
      // No additionalProperties: any other field, of any value, is allowed.
      const unknown = fc.dictionary(
        anyString.filter((key) => !(key in properties) && key !== '__proto__'),
        anyJson,
        { maxKeys: 3 },
      );
      return fc.tuple(known, unknown).map(([fields, extra]) => ({ ...extra, ...fields }));
    }
    case 'integer': {
      checkKeywords(schema, ['type', 'format', 'minimum', 'maximum']);
      const [formatMin, formatMax] = INT_FORMATS[String(schema.format)] ?? [];
      if (formatMin === undefined || formatMax === undefined)
        throw new Error(`integer format ${String(schema.format)} is not supported`);
      const min = schema.minimum === undefined ? formatMin : BigInt(schema.minimum as bigint);
      const max = schema.maximum === undefined ? formatMax : BigInt(schema.maximum as bigint);
      return fc.bigInt({ min: min > formatMin ? min : formatMin, max: max < formatMax ? max : formatMax });
    }
    case 'string':
      checkKeywords(schema, ['type']);
      return anyString;
    default:
      throw new Error(`schema ${JSON.stringify(schema)} is not supported by this generator`);
  }
}

/** A generated instance as JSON.parse would read its JSON text: bigints become (nearest) numbers. */
export function asParsedJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(asParsedJson);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asParsedJson(item)]));
  return value;
}
