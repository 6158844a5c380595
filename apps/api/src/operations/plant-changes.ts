// Changing a plant: PUT replaces it, PATCH applies a JSON merge patch (RFC 7396). Both under If-Match.
import {
  type ChangePlantOptions,
  NewPlantObjectSchema,
  PlantIdSchema,
  PlantTextSchema,
  patchPlant,
  replacePlant,
} from '@plant-store/domain';
import * as v from 'valibot';
import { failure } from './answers.ts';
import {
  BAD_PARAMETER_EXAMPLES,
  BAD_REQUEST_EXAMPLES,
  PATCH_BAD_REQUEST_EXAMPLES,
  REPLACE_BAD_REQUEST_EXAMPLES,
} from './error-examples.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { answerPlant, ONE_PLANT, PLANT_ID, PLANT_NOT_FOUND, plantAnswer } from './plant-answers.ts';
import { IF_MATCH, ifMatchOf, PRECONDITION_FAILED } from './preconditions.ts';

/** The body of a PUT as the document shows it: a Plant, and the path's id if the client sends one. */
export const PlantReplacementSchema = v.object(
  { ...NewPlantObjectSchema.entries, id: v.optional(PlantIdSchema) },
  'is required',
);

/** The body of a PATCH as the document shows it: a JSON merge patch of a Plant. */
export const PlantMergePatchSchema = v.object({
  id: v.optional(PlantIdSchema),
  name: v.optional(PlantTextSchema),
  tag: v.optional(v.nullable(PlantTextSchema)),
});

/** The domain's options of a change: If-Match as its precondition, when the request has one. */
function changeOptions(ctx: OperationContext): ChangePlantOptions {
  const ifMatch = ifMatchOf(ctx);
  return ifMatch === undefined ? {} : { ifMatch };
}

const ORDER =
  'The checks run in this order: credential (401), scope (403), path id (400), media type (415), size (413), JSON and fields (400), then the plant: `If-Match` (412), absent (404).';

const badRequest = (fields: string) => `Bad request: nothing was changed, because

- the path's id is not a plain decimal int64;
- two \`Authorization\` or two \`Content-Type\` headers were sent;
- the body is empty, is not valid UTF-8, or is not exactly one JSON value;
- ${fields}
- a \`name\` or \`tag\` holds the NUL character or a lone surrogate, which no storage keeps exactly.

The message names the parameter or the field, and the problem.`;

const { idNotDecimal } = BAD_PARAMETER_EXAMPLES;
const {
  contentTypeTwice,
  emptyBody,
  notJson,
  notAnObject,
  missingName,
  nameNull,
  nameWithNul,
  idBeyondInt64,
} = BAD_REQUEST_EXAMPLES;

export const replacePlantOperation = defineOperation({
  method: 'put',
  path: ONE_PLANT,
  operationId: 'replacePlant',
  tags: ['plants'],
  scope: 'write',
  storage: true,
  summary: 'Replaces a plant: its name, and its tag (removed when left out).',
  description: `The body is a Plant, checked as a create's is; unknown members are ignored, and an \`id\` member is allowed when it is the path's id. The plant must exist: PUT never creates (POST does). The same PUT again answers 200 and changes nothing. With \`If-Match\`, only the plant it names is replaced. Changes send no webhook. ${ORDER}`,
  params: PLANT_ID,
  headers: [IF_MATCH],
  body: { mediaType: 'application/json', schema: PlantReplacementSchema },
  responses: {
    200: plantAnswer('The plant as stored now, with its new ETag.'),
    400: failure(
      badRequest(
        "it is not a Plant: not a JSON object; `name` missing or not a string; `tag` not a string (`null` is not one: leave `tag` out to remove it); an `id` member that is not the path's id;",
      ),
      {
        idNotDecimal,
        contentTypeTwice,
        emptyBody,
        notJson,
        notAnObject,
        missingName,
        nameNull,
        ...REPLACE_BAD_REQUEST_EXAMPLES,
        idBeyondInt64,
        nameWithNul,
      },
    ),
    404: PLANT_NOT_FOUND,
    412: PRECONDITION_FAILED,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params, body }) => {
      answerPlant(ctx, await replacePlant({ plants }, params.id, body, changeOptions(ctx)));
    },
});

export const patchPlantOperation = defineOperation({
  method: 'patch',
  path: ONE_PLANT,
  operationId: 'patchPlant',
  tags: ['plants'],
  scope: 'write',
  storage: true,
  summary: 'Changes some of a plant: a JSON merge patch (RFC 7396) of its name and tag.',
  description: `\`Content-Type: application/merge-patch+json\`. \`name\` a string replaces the name; \`tag\` a string sets it, \`null\` removes it; members left out stay as they are, even when another request changes them meanwhile; unknown members are ignored, and an \`id\` member is allowed when it is the path's id. \`{}\` changes nothing. With \`If-Match\`, only the plant it names is changed. Changes send no webhook. ${ORDER}`,
  params: PLANT_ID,
  headers: [IF_MATCH],
  body: { mediaType: 'application/merge-patch+json', schema: PlantMergePatchSchema },
  responses: {
    200: plantAnswer('The plant as stored now, with its new ETag.'),
    400: failure(
      badRequest(
        "it is not a merge patch of a Plant: not a JSON object; `name` not a string (`null` too: a plant keeps a name); `tag` neither a string nor `null`; an `id` member that is not the path's id;",
      ),
      {
        idNotDecimal,
        contentTypeTwice,
        emptyBody,
        notJson,
        notAnObject,
        nameNull,
        ...PATCH_BAD_REQUEST_EXAMPLES,
        otherId: REPLACE_BAD_REQUEST_EXAMPLES.otherId,
        nameWithNul,
      },
    ),
    404: PLANT_NOT_FOUND,
    412: PRECONDITION_FAILED,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params, body }) => {
      answerPlant(ctx, await patchPlant({ plants }, params.id, body, changeOptions(ctx)));
    },
});
