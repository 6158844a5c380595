import { INT64_MAX, INT64_MIN, NewPlantSchema, type Plant, PlantIdSchema } from '@plant-store/domain';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ErrorBody } from '../http/error-responses.ts';

// NewPlantSchema is a guard that the input is a JSON object (valibot's object schema takes arrays
// too), then the object schema. JSON Schema's `type: object` is that guard already, so the object
// schema alone is converted; a new step in the domain's pipe stops the build instead of vanishing.
const [objectGuard, newPlantObject, ...unexpectedSteps] = NewPlantSchema.pipe;
if (objectGuard.type !== 'custom' || newPlantObject.type !== 'object' || unexpectedSteps.length > 0) {
  throw new Error('NewPlantSchema is no longer [object guard, object]: update the OpenAPI conversion');
}

/** The service's answer to a created plant: the NewPlant's fields but the id, from the same schema. */
export const PlantResponseSchema = v.omit(newPlantObject, ['id']);

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

// The id is a union of bigint (from the exact JSON parser) and number (from JavaScript callers),
// checked into the int64 range, then made a bigint: on the wire it is one JSON integer in that range.
const [idUnion, ...idSteps] = PlantIdSchema.pipe;
const idStepSet = new Set<unknown>(idSteps);

/** `minimum` and `maximum` are exact bigints here; the document is serialized with exact integers. */
const INT64_JSON_SCHEMA = {
  type: 'integer',
  format: 'int64',
  minimum: INT64_MIN,
  maximum: INT64_MAX,
} as const;

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  // Anything the conversion cannot express and is not handled below stops the build: a rule added to
  // the domain either reaches the published document or fails the tests, never silently drops out.
  errorMode: 'throw',
  overrideSchema: ({ valibotSchema }) => {
    if (valibotSchema === idUnion) return { ...INT64_JSON_SCHEMA } as unknown as JsonSchema;
    // The bigint branch of that union; replaced with the whole union just above.
    if (valibotSchema.type === 'bigint') return {};
    return undefined;
  },
  overrideAction: ({ valibotAction, jsonSchema }) => {
    // The id's checks are the int64 range (minimum/maximum above), integrality (`type: integer`) and
    // exactness for JavaScript callers; its transform turns the integer into a bigint. Nothing to add.
    if (idStepSet.has(valibotAction)) return jsonSchema;
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

export { newPlantObject as NewPlantObjectSchema };
