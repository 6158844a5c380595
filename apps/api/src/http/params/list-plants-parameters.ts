import { invalidParameter, PAGE_LIMIT_RULE, PageLimitSchema, type PageSelection } from '@plant-store/domain';
import * as v from 'valibot';
import { PlantIdTextSchema } from './plant-id-parameter.ts';

// Up to four digits without a leading zero, so Number() never reads a long text; the range is the
// domain's PageLimitSchema.
const LIMIT_TEXT = /^[1-9][0-9]{0,3}$/;

/** A page limit as text, as a URL's query carries it: plain decimal, 1 to 1000. */
export const PageLimitTextSchema = v.pipe(
  v.string((issue) => (Array.isArray(issue.input) ? 'must be given once' : PAGE_LIMIT_RULE)),
  v.regex(LIMIT_TEXT, PAGE_LIMIT_RULE),
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

/**
 * Reads `limit` and `after` from a URL's query (Koa's `ctx.query`), ignoring other names; throws the
 * domain's InvalidParameterError naming each bad parameter. The default limit is listPlants' to fill in.
 */
export function parseListPlantsParameters(query: Readonly<Record<string, unknown>>): PageSelection {
  const result = v.safeParse(ListPlantsParametersSchema, query, { abortPipeEarly: true });
  if (!result.success) throw invalidParameter(result.issues, 'query');
  const { limit, after } = result.output;
  return { ...(limit === undefined ? {} : { limit }), ...(after === undefined ? {} : { after }) };
}
