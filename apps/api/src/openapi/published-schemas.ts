// The valibot schemas the service validates with, as the JSON Schemas the published document holds.
import { INT64_MAX, INT64_MIN, PlantIdSchema } from '@plant-store/domain';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { PlantIdTextSchema } from '../operations/parameters.ts';

/** What an id is on the wire: one JSON integer, an int64 with its exact bounds (bigints, written exactly). */
const PLANT_ID_JSON_SCHEMA = {
  type: 'integer',
  format: 'int64',
  minimum: INT64_MIN,
  maximum: INT64_MAX,
} as unknown as JsonSchema;

// The ids: the domain's value (a union of bigint, from the exact JSON parser, and number, from
// JavaScript callers) and the routes' text (the {id} and `after` parameters), each checked and made a
// bigint. JSON Schema cannot follow such a pipe part by part, so every part of it converts to the
// whole int64, in whatever order the pipe holds them.
const INT64_PARTS = new Map<unknown, JsonSchema>(
  [PlantIdSchema, PlantIdTextSchema].flatMap((schema) =>
    schema.pipe.flatMap((part) => [
      [part, PLANT_ID_JSON_SCHEMA] as const,
      ...('options' in part ? part.options.map((option) => [option, PLANT_ID_JSON_SCHEMA] as const) : []),
    ]),
  ),
);

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  // Anything the conversion cannot express and is not handled below stops the build: a rule added to
  // the domain either reaches the published document or fails the tests, never silently drops out.
  errorMode: 'throw',
  // Every part of an int64 schema converts to the whole int64: its schemas (a union's options first,
  // then the union), and its actions, whose rules (range, integrality, exactness for JavaScript
  // callers, plain decimal text) and transform to a bigint it already says or needs not say.
  overrideSchema: ({ valibotSchema }) => {
    const int64 = INT64_PARTS.get(valibotSchema);
    return int64 === undefined ? undefined : { ...int64 };
  },
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const int64 = INT64_PARTS.get(valibotAction);
    if (int64 !== undefined) return { ...int64 };
    // Other checks are refinements JSON Schema cannot say without refusing instances the contract
    // accepts (a pattern against lone surrogates would): they are documented, collected here.
    if (valibotAction.type === 'check') {
      const message = (valibotAction as { message?: unknown }).message;
      const rule = typeof message === 'string' ? message : 'a rule of the service';
      const known = (jsonSchema as { 'x-refused-when'?: string[] })['x-refused-when'] ?? [];
      return { ...jsonSchema, 'x-refused-when': [...known, rule] } as JsonSchema;
    }
    return undefined;
  },
};

/** A valibot schema as a JSON Schema 2020-12 object for OpenAPI 3.1's components (no `$schema`). */
export function toComponentSchema(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = toJsonSchema(schema, conversion) as Record<string, unknown>;
  return jsonSchema;
}

/** A parameter's schema: that of the value its text is read as (the output of its schema). */
export function toParameterSchema(schema: v.GenericSchema): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = toJsonSchema(schema, { ...conversion, typeMode: 'output' });
  return jsonSchema;
}

/** A schema whose parts among `components` are references to the document's components.schemas. */
export function toReferencingSchema(
  schema: v.GenericSchema,
  components: Readonly<Record<string, v.GenericSchema>>,
): Record<string, unknown> {
  const {
    $schema: _dialect,
    $defs: _definitions,
    ...jsonSchema
  } = toJsonSchema(schema, {
    ...conversion,
    definitions: components,
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  }) as Record<string, unknown>;
  return jsonSchema;
}
