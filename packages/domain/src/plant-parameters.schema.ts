import * as v from 'valibot';
import { InvalidParameterError, type PlantIssue } from './errors.ts';
import { PLANT_ID_METADATA, PlantIdSchema } from './new-plant.schema.ts';
import { INT64_MAX, INT64_MIN } from './plant.ts';

/** How many plants a page holds when the caller does not say. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most plants one page holds. */
export const MAX_PAGE_LIMIT = 1000;

const LIMIT_RULE = `must be an integer from 1 to ${MAX_PAGE_LIMIT}`;
const INT64_RULE = `must be an integer between ${INT64_MIN} and ${INT64_MAX}`;
const PLAIN_DECIMAL_RULE =
  'must be an integer in plain decimal (digits with an optional leading -; no +, leading zeros, fraction or exponent)';

/** The size of a page of plants: an integer from 1 to 1000. */
export const PageLimitSchema = v.pipe(
  v.number(LIMIT_RULE),
  v.integer(LIMIT_RULE),
  v.minValue(1, LIMIT_RULE),
  v.maxValue(MAX_PAGE_LIMIT, LIMIT_RULE),
);

/** What listPlants is asked, as values: `limit` (default 100) and `after`, an int64 cursor. */
export const ListPlantsQuerySchema = v.object(
  { limit: v.optional(PageLimitSchema, DEFAULT_PAGE_LIMIT), after: v.optional(PlantIdSchema) },
  'must be an object',
);

/** What listPlants is asked: at most `limit` plants (default 100), of ids greater than `after`. */
export interface ListPlantsQuery {
  readonly limit?: number;
  readonly after?: bigint;
}

// The canonical text of an int64: "0", or digits without a leading zero after an optional "-".
// "-0" is refused too, so that every id has exactly one text and a cursor cannot alias another.
const PLAIN_DECIMAL = /^(?:0|-?[1-9][0-9]*)$/;
// "-9223372036854775808" is the longest int64 text: anything longer is out of range, and never
// reaches BigInt(), whose cost grows faster than the length of its text.
const INT64_TEXT_MAX_LENGTH = 20;

/** An int64 id as text, as a URL carries it (`/plants/{id}`, `?after=`): plain decimal only. */
export const PlantIdTextSchema = v.pipe(
  v.string((issue) => (Array.isArray(issue.input) ? 'must be given once' : 'must be text')),
  v.regex(PLAIN_DECIMAL, PLAIN_DECIMAL_RULE),
  v.check((text) => text.length <= INT64_TEXT_MAX_LENGTH, INT64_RULE),
  v.transform((text) => BigInt(text)),
  v.check((id) => id >= INT64_MIN && id <= INT64_MAX, INT64_RULE),
  v.metadata(PLANT_ID_METADATA),
);

/** A page limit as text, as a URL's query carries it: plain decimal, 1 to 1000. */
export const PageLimitTextSchema = v.pipe(
  v.string((issue) => (Array.isArray(issue.input) ? 'must be given once' : LIMIT_RULE)),
  v.regex(/^[1-9][0-9]{0,3}$/, LIMIT_RULE),
  v.transform(Number),
  PageLimitSchema,
);

/**
 * The parameters of a list as a URL's query carries them (a value per name, an array when a name
 * is repeated): `limit` and `after` as text, each optional; other names are ignored.
 */
export const ListPlantsParametersSchema = v.object({
  limit: v.optional(PageLimitTextSchema),
  after: v.optional(PlantIdTextSchema),
});

function fail(issues: readonly v.BaseIssue<unknown>[], field: string): never {
  const named = issues.map(
    (issue): PlantIssue => ({
      field: v.getDotPath(issue) ?? field,
      problem: issue.message,
    }),
  );
  throw new InvalidParameterError(named);
}

/** Checks an id given as a value (bigint, or a safe integer number); throws InvalidParameterError naming `field`. */
export function parsePlantId(id: unknown, field = 'id'): bigint {
  const result = v.safeParse(PlantIdSchema, id, { abortPipeEarly: true });
  return result.success ? result.output : fail(result.issues, field);
}

/** Checks the query of listPlants and fills in the default limit; throws InvalidParameterError naming each bad parameter. */
export function parseListPlantsQuery(query: unknown): v.InferOutput<typeof ListPlantsQuerySchema> {
  const result = v.safeParse(ListPlantsQuerySchema, query, { abortPipeEarly: true });
  return result.success ? result.output : fail(result.issues, 'query');
}

/** Reads an id from its text (a path segment); throws InvalidParameterError naming `field`. */
export function parsePlantIdParameter(text: unknown, field = 'id'): bigint {
  const result = v.safeParse(PlantIdTextSchema, text, { abortPipeEarly: true });
  return result.success ? result.output : fail(result.issues, field);
}

/**
 * Reads `limit` and `after` from a URL's query (e.g. Koa's `ctx.query`), ignoring other names;
 * throws InvalidParameterError naming each bad parameter. The default limit is listPlants' to fill in.
 */
export function parseListPlantsParameters(parameters: Readonly<Record<string, unknown>>): ListPlantsQuery {
  const result = v.safeParse(ListPlantsParametersSchema, parameters, { abortPipeEarly: true });
  if (!result.success) fail(result.issues, 'query');
  const { limit, after } = result.output;
  return { ...(limit === undefined ? {} : { limit }), ...(after === undefined ? {} : { after }) };
}
