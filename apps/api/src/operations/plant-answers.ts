// How the operations answer a plant: JSON, with the plant's ETag; and what their descriptions share.
import type { Plant } from '@plant-store/domain';
import { PlantResponseSchema } from './answer-bodies.ts';
import { failure, sharedHeader } from './answers.ts';
import { PLANT_NOT_FOUND_EXAMPLES } from './error-examples.ts';
import type { Answer, OperationContext } from './operation.ts';
import { PlantIdTextSchema } from './parameters.ts';
import { plantETag } from './plant-etag.ts';

/**
 * A JSON answer, its type set as a header: `ctx.body = object` has Koa look the type up in its mime
 * table on every answer, then stringify it. Headers go to Node's answer itself: Koa's `ctx.set`
 * builds two arrays and a closure a call (bench/PROFILE.md, "The request path in memory").
 */
export function answerJson(ctx: OperationContext, text: string): void {
  ctx.status = 200;
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.body = text;
}

/** 200 with one plant, and its ETag (DESIGN.md: every answer that carries one plant has it). */
export function answerPlant(ctx: OperationContext, plant: Plant, etag = plantETag(plant)): void {
  ctx.res.setHeader('ETag', etag);
  answerJson(ctx, JSON.stringify(plant));
}

/** The 200 of an operation that answers one plant. */
export const plantAnswer = (description: string): Answer => ({
  description,
  headers: { ETag: sharedHeader('ETag') },
  body: { schema: PlantResponseSchema },
});

/** The path of one plant, and its parameter, shared by the operations on it. */
export const ONE_PLANT = '/plants/{id}';
export const PLANT_ID = {
  id: {
    description:
      "The plant's id, an int64 in plain decimal: digits with an optional leading `-`; no `+`, leading zeros, fraction or exponent.",
    schema: PlantIdTextSchema,
  },
};
export const PLANT_NOT_FOUND = failure('No plant is stored under this id.', PLANT_NOT_FOUND_EXAMPLES);
