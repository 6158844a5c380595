import * as v from 'valibot';
import { InvalidPlantError, type PlantIssue } from './errors.ts';
import { INT64_MAX, INT64_MIN, type NewPlant, newPlant } from './plant.ts';

/** Why an id is refused for its range: the same words wherever an id is read. */
export const PLANT_ID_RANGE_RULE = `must be an integer between ${INT64_MIN} and ${INT64_MAX}`;

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'bigint':
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** The words of a refused value: "is required" when it is missing, else what it must be and what it is. */
export const mustBe =
  (what: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    issue.input === undefined ? 'is required' : `must be ${what}, not ${describeValue(issue.input)}`;

// A JSON parser that keeps integers exact hands over a bigint; a number reaching this point is
// fractional or out of range, or comes from a JavaScript caller, where only safe integers are exact.
export const PlantIdSchema = v.pipe(
  v.union([v.bigint(), v.number()], mustBe('an integer')),
  v.check(
    (n) => (typeof n === 'bigint' ? n >= INT64_MIN && n <= INT64_MAX : n >= -(2 ** 63) && n < 2 ** 63),
    PLANT_ID_RANGE_RULE,
  ),
  v.check(
    (n) => typeof n === 'bigint' || Number.isInteger(n),
    'must be an integer, without a fractional part',
  ),
  v.check(
    (n) => typeof n === 'bigint' || Number.isSafeInteger(n),
    'must be passed as a bigint: a number beyond 2^53 is not exact',
  ),
  v.transform((n) => BigInt(n)),
);

/** A string as a name or tag must be, `what` saying what else it may be when it is not a string. */
export const plantText = (what = 'a string') =>
  // PostgreSQL text holds neither NUL nor lone UTF-16 surrogates; refusing them here gives every
  // adapter the same answer instead of a driver error or a silently replaced character.
  v.pipe(
    v.string(mustBe(what)),
    v.check((s) => !s.includes('\0'), 'must not contain the NUL character (U+0000)'),
    v.check((s) => s.isWellFormed(), 'must be well-formed Unicode (it contains a lone surrogate)'),
  );

/** The rules of a name or a tag: a string without NUL and without lone surrogates, kept exactly. */
export const PlantTextSchema = plantText();

/**
 * The fields of a NewPlant: `id` an int64, `name` a string, `tag` an optional string. Other fields are
 * ignored. Like any valibot object schema it takes an array too: parse with `NewPlantSchema`.
 */
export const NewPlantObjectSchema = v.object(
  { id: PlantIdSchema, name: PlantTextSchema, tag: v.optional(PlantTextSchema) },
  // The object schema reports a missing key with the key in the issue's path.
  'is required',
);

/** A JSON object, not an array: valibot's object schemas take arrays too. */
export const JsonObjectSchema = v.custom<Record<string, unknown>>(
  (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
  (issue) => `must be a JSON object, not ${describeValue(issue.input)}`,
);

/** The rules of a NewPlant: a JSON object (not an array) with the fields of `NewPlantObjectSchema`. */
export const NewPlantSchema = v.pipe(JsonObjectSchema, NewPlantObjectSchema);

/** A valibot issue as a PlantIssue: the field by its path, "" for the whole input. */
export function toIssue(issue: v.BaseIssue<unknown>): PlantIssue {
  const field = v.getDotPath(issue) ?? '';
  return { field, problem: issue.message };
}

/** Checks untrusted input against the rules; throws InvalidPlantError naming each bad field. */
export function parseNewPlant(input: unknown): NewPlant {
  const result = v.safeParse(NewPlantSchema, input, { abortPipeEarly: true });
  if (!result.success) throw new InvalidPlantError(result.issues.map(toIssue));
  const { id, name, tag } = result.output;
  return newPlant(id, name, tag);
}
