// The store itself: each operation on plants as it is published and as it is served. Changing a plant
// (PUT, PATCH) is in plant-changes.ts.
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
import { failure } from './answers.ts';
import { BAD_REQUEST_EXAMPLES, CONFLICT_EXAMPLES, INTERNAL_ERROR_EXAMPLES } from './error-examples.ts';
import { defineOperation } from './operation.ts';
import { PageLimitTextSchema, PlantIdTextSchema, PlantTagTextSchema } from './parameters.ts';
import {
  answerJson,
  answerPlant,
  ONE_PLANT,
  PLANT_ID,
  PLANT_NOT_FOUND,
  plantAnswer,
} from './plant-answers.ts';
import { plantETag } from './plant-etag.ts';
import {
  answerNotModified,
  IF_MATCH,
  IF_NONE_MATCH,
  ifMatchOf,
  isNotModified,
  NOT_MODIFIED,
  PRECONDITION_FAILED,
} from './preconditions.ts';

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

/**
 * The link to the page after this one, as RFC 8288 writes it (DESIGN.md: `</plants?limit=N&after=LAST>;
 * rel="next"`), with the page's tag, percent-encoded, when it lists by tag.
 */
function nextPageLink(next: PlantPage['next']): string | undefined {
  if (next === undefined) return undefined;
  const tag = next.tag === undefined ? '' : `&tag=${encodeURIComponent(next.tag)}`;
  return `</plants?limit=${next.limit}&after=${next.after}${tag}>; rel="next"`;
}

export const listPlantsOperation = defineOperation({
  method: 'get',
  path: '/plants',
  operationId: 'listPlants',
  tags: ['plants'],
  scope: 'read',
  storage: true,
  summary:
    'Lists plants with their ids, ascending by id, a page at a time, or those of one tag (HEAD: headers only).',
  description:
    'While more plants remain, `Link: </plants?limit=N&after=LAST>; rel="next"` gives the next page ' +
    '(with `&tag=T` when listing by tag). Following it from the first page sees every plant stored for ' +
    'the whole walk exactly once, whatever is created, changed or deleted meanwhile. A page holds at most ' +
    '`limit` plants and at most 1 MiB of body, but always one plant: a page of long plants may hold ' +
    'fewer than `limit` and still have a next one, which starts after its last plant. Unknown parameters ' +
    'are ignored; a parameter given twice is a 400.',
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
    tag: {
      description:
        'Only plants whose tag is exactly this text, percent-encoded as UTF-8 (`tag=` is the empty tag; a plant without a tag never matches).',
      schema: PlantTagTextSchema,
    },
  },
  responses: {
    200: {
      description: 'A page of plants; each `id` an exact JSON integer.',
      headers: {
        Link: {
          description:
            'The next page, present while more plants remain: `</plants?limit=N&after=LAST>; rel="next"`, with `&tag=T` (percent-encoded UTF-8) when listing by tag.',
          required: false,
          schema: {
            type: 'string',
            pattern: '^</plants\\?limit=[0-9]+&after=-?[0-9]+(&tag=[A-Za-z0-9%!\'()*._~-]*)?>; rel="next"$',
          },
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
      const { tag } = query;
      const next =
        body.count < page.plants.length && last !== undefined
          ? {
              limit: query.limit ?? DEFAULT_PAGE_LIMIT,
              after: last.id,
              ...(tag === undefined ? {} : { tag }),
            }
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
    200: plantAnswer(
      'The plant response, the created plant (or the stored one, for a retry), with its ETag.',
    ),
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
      answerPlant(ctx, plant);
    },
});

export const getPlantOperation = defineOperation({
  method: 'get',
  path: ONE_PLANT,
  operationId: 'getPlant',
  tags: ['plants'],
  scope: 'read',
  storage: true,
  summary: 'Reads a plant by its id (HEAD: the same headers, no body).',
  description:
    'With `If-None-Match` naming its current ETag (or `*`), 304 without a body: a cache asks whether its copy is still the plant.',
  params: PLANT_ID,
  headers: [IF_NONE_MATCH],
  responses: {
    200: plantAnswer('The plant, without its id (as POST answers it), with its ETag.'),
    304: NOT_MODIFIED,
    404: PLANT_NOT_FOUND,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params }) => {
      const plant = await getPlant({ plants }, params.id);
      const etag = plantETag(plant);
      if (isNotModified(ctx, etag)) answerNotModified(ctx, etag);
      else answerPlant(ctx, plant, etag);
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
  description: 'With `If-Match`, only the plant it names: else 412, and the plant stays.',
  params: PLANT_ID,
  headers: [IF_MATCH],
  responses: {
    204: { description: 'The plant was deleted.' },
    404: PLANT_NOT_FOUND,
    412: PRECONDITION_FAILED,
  },
  handler:
    ({ plants }) =>
    async (ctx, { params }) => {
      const ifMatch = ifMatchOf(ctx);
      await deletePlant({ plants }, params.id, ifMatch === undefined ? {} : { ifMatch });
      ctx.status = 204;
    },
});
