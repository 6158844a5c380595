// The parameters of the operations as a URL carries them, text, read by the domain's rules and in its
// words. A query parameter given twice arrives as an array: it is refused as given more than once.
import {
  INT64_MAX,
  INT64_MIN,
  PAGE_LIMIT_RULE,
  PageLimitSchema,
  PLANT_ID_RANGE_RULE,
  PlantTextSchema,
} from '@plant-store/domain';
import * as v from 'valibot';

const PLAIN_DECIMAL_RULE =
  'must be an integer in plain decimal (digits with an optional leading -; no +, leading zeros, fraction or exponent)';

// The canonical text of an int64: "0", or digits without a leading zero after an optional "-".
// "-0" is refused too, so that every id has exactly one text and a cursor cannot alias another.
const PLAIN_DECIMAL = /^(?:0|-?[1-9][0-9]*)$/;
// "-9223372036854775808" is the longest int64 text: anything longer is out of range, and never
// reaches BigInt(), whose cost grows faster than the length of its text.
const INT64_TEXT_MAX_LENGTH = 20;

/** An int64 id as text, as a path segment or the `after` of a list carries it: plain decimal only. */
export const PlantIdTextSchema = v.pipe(
  v.string((issue) => (Array.isArray(issue.input) ? 'must be given once' : 'must be text')),
  v.regex(PLAIN_DECIMAL, PLAIN_DECIMAL_RULE),
  v.check((text) => text.length <= INT64_TEXT_MAX_LENGTH, PLANT_ID_RANGE_RULE),
  v.transform((text) => BigInt(text)),
  v.check((id) => id >= INT64_MIN && id <= INT64_MAX, PLANT_ID_RANGE_RULE),
);

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

/** A tag as a query carries it, percent-decoded: any text a tag may be (`tag=` is the empty tag), once. */
export const PlantTagTextSchema = v.pipe(
  v.string((issue) => (Array.isArray(issue.input) ? 'must be given once' : 'must be text')),
  PlantTextSchema,
);
