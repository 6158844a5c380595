// The bodies the operations answer, as valibot schemas: the published document is made from them.
import { NewPlantObjectSchema, type Plant } from '@plant-store/domain';
import * as v from 'valibot';
import type { ErrorBody } from '../http/middleware/error-responses.ts';

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
