// The store itself: each operation on plants as it is published and as it is served.
import {
  createPlant,
  DEFAULT_PAGE_LIMIT,
  deletePlant,
  getPlant,
  listPlants,
  type NewPlant,
  NewPlantObjectSchema,
  type PlantPage,
} from '@plant-store/domain';
import * as v from 'valibot';
import { jsonStringBound, stringifyBoundedArray } from '../http/json/bounded-array.ts';
import { PlantResponseSchema } from './answer-bodies.ts';
import { failure } from './answers.ts';
import {
  BAD_REQUEST_EXAMPLES,
  CONFLICT_EXAMPLES,
  INTERNAL_ERROR_EXAMPLES,
  PLANT_NOT_FOUND_EXAMPLES,
} from './error-examples.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { PageLimitTextSchema, PlantIdTextSchema } from './parameters.ts';

/**
 * A JSON answer, its type set as a header: `ctx.body = object` has Koa look the type up in its mime
 * table on every answer, then stringify it (~1.5 us a request in the profile).
 */
function answerJson(ctx: OperationContext, text: string): void {
  ctx.status = 200;
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = text;
}

/** DESIGN.md: a list page's body takes at most 1 MiB, but holds one plant whatever its size. */
export const PAGE_BODY_MAX_BYTES = 1024 * 1024;

// `{"id":` and up to 20 digits, `,"name":`, `,"tag":`, `}` and the comma after it, with room to spare.
const PLANT_JSON_OVERHEAD = 64;

function plantJsonBound(plant: NewPlant): number {
  return (
    PLANT_JSON_OVERHEAD +
    jsonStringBound(plant.name) +
    (plant.tag === undefined ? 0 : jsonStringBound(plant.tag))
  );
}

/** The link to the page after this one, as RFC 8288 writes it (DESIGN.md: `</plants?limit=N&after=LAST>; rel="next"`). */
function nextPageLink(next: PlantPage['next']): string | undefined {
  return next === undefined ? undefined : `</plants?limit=${next.limit}&after=${next.after}>; rel="next"`;
}

export const listPlantsOperation = defineOperation({
  method: 'get',
  path: '/plants',
  operationId: 'listPlants',
  tags: ['plants'],
  scope: 'read',
  storage: true,
  summary: 'Lists plants with their ids, ascending by id, a page at a time (HEAD: headers only).',
  description:
    'While more plants remain, `Link: </plants?limit=N&after=LAST>; rel="next"` gives the next page. ' +
    'Following it from the first page sees every plant stored for the whole walk exactly once, whatever ' +
    'is created or deleted meanwhile. A page holds at most `limit` plants and at most 1 MiB of body, ' +
    'but always one plant: a page of long plants may hold fewer than `limit` and still have a next ' +
    'one, which starts after its last plant. Unknown parameters are ignored.',
  query: {
    limit: {
      description: 'How many plants at most, 1 to 1000.',
      schema: PageLimitTextSchema,
      default: DEFAULT_PAGE_LIMIT,
    },
    after: {
      description: 'Only plants with a greater id: the last id of the page before (plain decimal int64).',
      schema: PlantIdTextSchema,
    },
  },
  responses: {
    200: {
      description: 'A page of plants; each `id` an exact JSON integer.',
      headers: {
        Link: {
          description:
            'The next page, present while more plants remain: `</plants?limit=N&after=LAST>; rel="next"`.',
          required: false,
          schema: { type: 'string', pattern: '^</plants\\?limit=[0-9]+&after=-?[0-9]+>; rel="next"$' },
        },
      },
      body: { schema: v.array(NewPlantObjectSchema) },
    },
  },
  // Ids are written as exact JSON integers, whatever their size. The storage reads no more than the
  // body's budget of names and tags; JSON escaping may still make them longer, so the body ends before
  // the plant that would pass it, and the next page starts after the last one written.
  handler:
    ({ plants }) =>
    async (ctx, { query }) => {
      const page = await listPlants({ plants }, query, { maxBytes: PAGE_BODY_MAX_BYTES });
      const body = stringifyBoundedArray(page.plants, PAGE_BODY_MAX_BYTES, plantJsonBound);
      const last = page.plants[body.count - 1];
      const next =
        body.count < page.plants.length && last !== undefined
          ? { limit: query.limit ?? DEFAULT_PAGE_LIMIT, after: last.id }
          : page.next;
      const link = nextPageLink(next);
      if (link !== undefined) ctx.set('Link', link);
      answerJson(ctx, body.text);
    },
});

// What a 400 of a create means: one cause a line, in the order the service checks them.
const BAD_REQUEST_CAUSES = [
  'two `Authorization` headers (with `WWW-Authenticate: Bearer error="invalid_request"`), or two `Content-Type` headers;',
  'the body is empty, is not valid UTF-8, or is not exactly one JSON value (a byte order mark, comments, or data after the value are refused, never repaired);',
  'it is not a NewPlant: not a JSON object; `id` missing, not a JSON integer, or outside int64 (`7.0` is the integer 7; `7.5` and `"7"` are refused); `name` missing or not a string; `tag` not a string (`null` is not one);',
  'a `name` or `tag` holds the NUL character or a lone surrogate, which no storage keeps exactly.',
];
const BAD_REQUEST_DESCRIPTION = `Bad request: nothing was stored, because the request is not one the service takes as it is:

${BAD_REQUEST_CAUSES.map((cause) => `- ${cause}`).join('\n')}

The message names the field and the problem. A request that the HTTP parser refuses (a malformed request line or header) is a 400 too, with the message \`bad request\`, and its connection is closed.`;

export const createPlantOperation = defineOperation({
  method: 'post',
  path: '/plants',
  operationId: 'createPlant',
  tags: ['plants'],
  scope: 'write',
  storage: true,
  summary: 'Creates a new plant in the store.',
  description:
    'Creates the plant and answers it without its id. The same `id` sent again with the same `name` ' +
    'and `tag` is a retry: 200 again, nothing changes. After a 200 the plant is durably stored.',
  body: { mediaType: 'application/json', schema: NewPlantObjectSchema },
  responses: {
    200: {
      description: 'The plant response, the created plant (or the stored one, for a retry).',
      body: { schema: PlantResponseSchema },
    },
    400: failure(BAD_REQUEST_DESCRIPTION, BAD_REQUEST_EXAMPLES),
    409: failure(
      'A plant with this `id` is stored already with another `name` or `tag`; it is unchanged.',
      CONFLICT_EXAMPLES,
    ),
    500: failure('A fault of the service; the message says nothing internal.', INTERNAL_ERROR_EXAMPLES),
  },
  handler:
    ({ plants }) =>
    async (ctx, { body }) => {
      // A retry of a stored plant (created: false) answers just like the first creation did.
      const { plant } = await createPlant({ plants }, body);
      answerJson(ctx, JSON.stringify(plant));
    },
});

/** The path of one plant, and its parameter, shared by the operations on it. */
const ONE_PLANT = '/plants/{id}';
const PLANT_ID = {
  id: {
    description:
      "The plant's id, an int64 in plain decimal: digits with an optional leading `-`; no `+`, leading zeros, fraction or exponent.",
    schema: PlantIdTextSchema,
  },
};
const PLANT_NOT_FOUND = failure('No plant is stored under this id.', PLANT_NOT_FOUND_EXAMPLES);

export const getPlantOperation = defineOperation({
  method: 'get',
  path: ONE_PLANT,
  operationId: 'getPlant',
  tags: ['plants'],
  scope: 'read',
  storage: true,
  summary: 'Reads a plant by its id (HEAD: the same headers, no body).',
  params: PLANT_ID,
  responses: {
    200: {
      description: 'The plant, without its id (as POST answers it).',
      body: { schema: PlantResponseSchema },
    },
    404: PLANT_NOT_FOUND,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params }) => {
      answerJson(ctx, JSON.stringify(await getPlant({ plants }, params.id)));
    },
});

export const deletePlantOperation = defineOperation({
  method: 'delete',
  path: ONE_PLANT,
  operationId: 'deletePlant',
  tags: ['plants'],
  scope: 'write',
  storage: true,
  summary: 'Deletes a plant; its id is then free for a plant with any content.',
  params: PLANT_ID,
  responses: {
    204: { description: 'The plant was deleted.' },
    404: PLANT_NOT_FOUND,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params }) => {
      await deletePlant({ plants }, params.id);
      ctx.status = 204;
    },
});
