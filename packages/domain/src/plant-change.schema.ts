import * as v from 'valibot';
import { InvalidPlantError } from './errors.ts';
import { JsonObjectSchema, PlantIdSchema, PlantTextSchema, plantText, toIssue } from './new-plant.schema.ts';
import type { PlantChange } from './plant-repository.port.ts';

/** Why a body's `id` member is refused when it is an id, but not the path's. */
const notTheIdOf = (id: bigint) => `must be the id of the plant it changes, ${id}, or left out`;

/** A body's `id` member: allowed when it is the id of the plant it changes (the path's), refused otherwise. */
const sameIdAs = (id: bigint) => v.optional(v.pipe(PlantIdSchema, v.value(id, notTheIdOf(id))));

const replacementEntries = <Id extends v.GenericSchema>(id: Id) => ({
  id,
  name: PlantTextSchema,
  tag: v.optional(PlantTextSchema),
});

const patchEntries = <Id extends v.GenericSchema>(id: Id) => ({
  id,
  name: v.optional(PlantTextSchema),
  tag: v.optional(v.nullable(plantText('a string, or null to remove it'))),
});

/**
 * The rules of a plant's replacement (PUT): a JSON object with `name` a string and `tag` an optional
 * string, as a NewPlant's; an `id` member only when it is `id`. Other members are ignored.
 */
export const plantReplacementSchema = (id: bigint) =>
  v.pipe(JsonObjectSchema, v.object(replacementEntries(sameIdAs(id)), 'is required'));

/**
 * The rules of a merge patch of a plant (RFC 7396, PATCH): a JSON object whose `name`, when present, is
 * a string (null would remove a name, which a plant cannot lose) and whose `tag`, when present, is a
 * string or null (removes it); an `id` member only when it is `id`. Other members are ignored.
 */
export const plantPatchSchema = (id: bigint) =>
  v.pipe(JsonObjectSchema, v.object(patchEntries(sameIdAs(id))));

// The same rules built once, an `id` member taken for any id: parseWith holds it to the path's, so
// that no schema is built for each request (plant-change.property.test.ts checks they agree).
const OptionalIdSchema = v.optional(PlantIdSchema);
const REPLACEMENT = v.pipe(JsonObjectSchema, v.object(replacementEntries(OptionalIdSchema), 'is required'));
const PATCH = v.pipe(JsonObjectSchema, v.object(patchEntries(OptionalIdSchema)));

/**
 * `input` by `schema`, its `id` member held to `id`: the issues a schema of `sameIdAs(id)` gives, in
 * its order (`id` is the first member checked).
 */
function parseWith<T extends { readonly id?: bigint | undefined }>(
  schema: v.GenericSchema<unknown, T>,
  id: bigint,
  input: unknown,
): T {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) {
    if (result.output.id === undefined || result.output.id === id) return result.output;
    throw new InvalidPlantError([{ field: 'id', problem: notTheIdOf(id) }]);
  }
  const issues = result.issues.map(toIssue);
  // Not a JSON object (the pipe stopped at its first step), or an `id` that is no id: nothing to add.
  if (!issues.some((issue) => issue.field === '' || issue.field === 'id')) {
    const member = v.safeParse(OptionalIdSchema, (input as Record<string, unknown>).id);
    if (member.success && member.output !== undefined && member.output !== id)
      issues.unshift({ field: 'id', problem: notTheIdOf(id) });
  }
  throw new InvalidPlantError(issues);
}

/**
 * Checks an untrusted replacement of the plant `id` (a PUT body) and answers the change it makes: the
 * name, and the tag or its removal. Throws InvalidPlantError naming each bad member.
 */
export function parsePlantReplacement(id: bigint, input: unknown): PlantChange {
  const { name, tag } = parseWith(REPLACEMENT, id, input);
  return { name, tag: tag ?? null };
}

/**
 * Checks an untrusted merge patch of the plant `id` (a PATCH body) and answers the change it makes:
 * only the members it names. Throws InvalidPlantError naming each bad member.
 */
export function parsePlantPatch(id: bigint, input: unknown): PlantChange {
  const { name, tag } = parseWith(PATCH, id, input);
  return { ...(name === undefined ? {} : { name }), ...(tag === undefined ? {} : { tag }) };
}
