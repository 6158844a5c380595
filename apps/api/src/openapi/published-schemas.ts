import { NewPlantObjectSchema, type Plant, PlantIdSchema, PlantIdTextSchema } from '@plant-store/domain';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ErrorBody } from '../http/middleware/error-responses.ts';

// The NewPlant published is the domain's object schema: JSON Schema's `type: object` already says
// what NewPlantSchema's guard against arrays adds to it.
export { NewPlantObjectSchema, PlantIdTextSchema };

/** The service's answer to a created plant: the NewPlant's fields but the id, from the same schema. */
export const PlantResponseSchema = v.omit(NewPlantObjectSchema, ['id']);

/** The one body of every failure (see error-responses.ts). */
export const ErrorBodySchema = v.object({
  error: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(-(2 ** 31)),
    v.maxValue(2 ** 31 - 1),
    v.metadata({ format: 'int32', description: 'The HTTP status code of the answer, e.g. 400.' }),
  ),
  message: v.pipe(
    v.string(),
    v.description('What went wrong, for a person: names the field and the problem.'),
  ),
});

export const HealthBodySchema = v.object({ status: v.literal('ok') });
export const ReadinessBodySchema = v.object({ status: v.literal('ready') });

// The schemas above describe what the code answers: let the compiler check that every answer fits.
type Fits<A, B> = [A] extends [B] ? true : false;
const errorBodyFits: Fits<ErrorBody, v.InferOutput<typeof ErrorBodySchema>> = true;
const plantFits: Fits<Plant, v.InferOutput<typeof PlantResponseSchema>> = true;
void errorBodyFits;
void plantFits;

// The domain's int64 ids: a value (a union of bigint, from the exact JSON parser, and number, from
// JavaScript callers) or text (a URL's), checked and made a bigint. JSON Schema cannot follow such a
// pipe part by part; on the wire each is one JSON integer, as the schema's metadata says. PlantIdTextSchema
// is for the {id} and `after` parameters of the routes that read plants.
const INT64_SCHEMAS = [PlantIdSchema, PlantIdTextSchema] as const;

/** An int64 schema's metadata as JSON Schema; `minimum` and `maximum` stay exact bigints. */
function int64JsonSchema(schema: (typeof INT64_SCHEMAS)[number]): JsonSchema {
  const { format, minimum, maximum } = v.getMetadata(schema);
  if (format !== 'int64' || typeof minimum !== 'bigint' || typeof maximum !== 'bigint') {
    throw new Error(
      'an id schema of the domain no longer says it is an int64: update the OpenAPI conversion',
    );
  }
  return { type: 'integer', format, minimum, maximum } as unknown as JsonSchema;
}

/** Each part of an int64 schema (its pipe's schemas and their options, and its actions), in any order. */
const INT64_PARTS = new Map<unknown, JsonSchema>(
  INT64_SCHEMAS.flatMap((schema) => {
    const int64 = int64JsonSchema(schema);
    return schema.pipe.flatMap((part) => [
      [part, int64] as const,
      ...('options' in part ? part.options.map((option) => [option, int64] as const) : []),
    ]);
  }),
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
