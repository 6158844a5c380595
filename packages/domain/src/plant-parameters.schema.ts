import * as v from 'valibot';
import { InvalidParameterError, type PlantIssue } from './errors.ts';
import { PlantIdSchema, PlantTextSchema } from './new-plant.schema.ts';

/** How many plants a page holds when the caller does not say. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most plants one page holds. */
export const MAX_PAGE_LIMIT = 1000;

/** Why a page limit is refused: the same words wherever a limit is read. */
export const PAGE_LIMIT_RULE = `must be an integer from 1 to ${MAX_PAGE_LIMIT}`;

/** The size of a page of plants: an integer from 1 to 1000. */
export const PageLimitSchema = v.pipe(
  v.number(PAGE_LIMIT_RULE),
  v.integer(PAGE_LIMIT_RULE),
  v.minValue(1, PAGE_LIMIT_RULE),
  v.maxValue(MAX_PAGE_LIMIT, PAGE_LIMIT_RULE),
);

/**
 * Which page listPlants reads, as values: `limit` (default 100), `after`, an int64 cursor, and `tag`,
 * the exact tag of the plants listed, under the rules of a tag (no NUL, no lone surrogate).
 */
export const PageSelectionSchema = v.object(
  {
    limit: v.optional(PageLimitSchema, DEFAULT_PAGE_LIMIT),
    after: v.optional(PlantIdSchema),
    tag: v.optional(PlantTextSchema),
  },
  'must be an object',
);

/**
 * Which page listPlants reads: at most `limit` plants (default 100), of ids greater than `after`, and
 * with `tag` exactly as their tag when it is given.
 */
export interface PageSelection {
  readonly limit?: number;
  readonly after?: bigint;
  readonly tag?: string;
}

/**
 * The issues of a refused parameter as an InvalidParameterError, each named by its path, or by
 * `field` when the issue is about the whole value.
 */
export function invalidParameter(
  issues: readonly v.BaseIssue<unknown>[],
  field: string,
): InvalidParameterError {
  return new InvalidParameterError(
    issues.map((issue): PlantIssue => ({ field: v.getDotPath(issue) ?? field, problem: issue.message })),
  );
}

/** Checks an id given as a value (bigint, or a safe integer number); throws InvalidParameterError naming `field`. */
export function parsePlantId(id: unknown, field = 'id'): bigint {
  const result = v.safeParse(PlantIdSchema, id, { abortPipeEarly: true });
  if (!result.success) throw invalidParameter(result.issues, field);
  return result.output;
}

/** Checks which page is asked for and fills in the default limit; throws InvalidParameterError naming each bad parameter. */
export function parsePageSelection(page: unknown): v.InferOutput<typeof PageSelectionSchema> {
  const result = v.safeParse(PageSelectionSchema, page, { abortPipeEarly: true });
  if (!result.success) throw invalidParameter(result.issues, 'page');
  return result.output;
}
