import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type JsonObject = Record<string, unknown>;

/**
 * A JSON Schema 2020-12 validator (Ajv, strict) for the schemas of an OpenAPI 3.1 document: its
 * components' schemas become one resource, and `#/components/schemas/...` references point into it.
 * Integers must be JSON numbers (as JSON.parse reads them); int32 and int64 say integer, and the
 * range is the schema's minimum and maximum.
 */
export function componentSchemaValidator(
  document: JsonObject,
  id: string,
): (schema: unknown) => ValidateFunction {
  const absoluteRefs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(absoluteRefs);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')
          ? `${id}#/$defs/${item.slice('#/components/schemas/'.length)}`
          : absoluteRefs(item),
      ]),
    );
  };
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addKeyword('x-refused-when');
  ajv.addFormat('int32', { type: 'number', validate: Number.isInteger });
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
  const components = (document.components ?? {}) as JsonObject;
  ajv.addSchema({ $id: id, $defs: absoluteRefs(components.schemas ?? {}) as JsonObject });
  const compiled = new Map<unknown, ValidateFunction>();
  return (schema) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(absoluteRefs(schema) as JsonObject);
      compiled.set(schema, validate);
    }
    return validate;
  };
}
