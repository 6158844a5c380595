import * as v from 'valibot';
import { InvalidPlantError } from './errors.ts';
import { JsonObjectSchema, PlantIdSchema, PlantTextSchema, plantText, toIssue } from './new-plant.schema.ts';
import type { PlantChange } from './plant-repository.port.ts';

/** A body's `id` member: allowed when it is the id of the plant it changes (the path's), refused otherwise. */
const sameIdAs = (id: bigint) =>
  v.optional(
    v.pipe(PlantIdSchema, v.value(id, `must be the id of the plant it changes, ${id}, or left out`)),
  );

/**
 * The rules of a plant's replacement (PUT): a JSON object with `name` a string and `tag` an optional
 * string, as a NewPlant's; an `id` member only when it is `id`. Other members are ignored.
 */
export const plantReplacementSchema = (id: bigint) =>
  v.pipe(
    JsonObjectSchema,
    v.object({ id: sameIdAs(id), name: PlantTextSchema, tag: v.optional(PlantTextSchema) }, 'is required'),
  );

/**
 * The rules of a merge patch of a plant (RFC 7396, PATCH): a JSON object whose `name`, when present, is
 * a string (null would remove a name, which a plant cannot lose) and whose `tag`, when present, is a
 * string or null (removes it); an `id` member only when it is `id`. Other members are ignored.
 */
export const plantPatchSchema = (id: bigint) =>
  v.pipe(
    JsonObjectSchema,
    v.object({
      id: sameIdAs(id),
      name: v.optional(PlantTextSchema),
      tag: v.optional(v.nullable(plantText('a string, or null to remove it'))),
    }),
  );

function parseWith<T>(schema: v.GenericSchema<unknown, T>, input: unknown): T {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (!result.success) throw new InvalidPlantError(result.issues.map(toIssue));
  return result.output;
}

/**
 * Checks an untrusted replacement of the plant `id` (a PUT body) and answers the change it makes: the
 * name, and the tag or its removal. Throws InvalidPlantError naming each bad member.
 */
export function parsePlantReplacement(id: bigint, input: unknown): PlantChange {
  const { name, tag } = parseWith(plantReplacementSchema(id), input);
  return { name, tag: tag ?? null };
}

/**
 * Checks an untrusted merge patch of the plant `id` (a PATCH body) and answers the change it makes:
 * only the members it names. Throws InvalidPlantError naming each bad member.
 */
export function parsePlantPatch(id: bigint, input: unknown): PlantChange {
  const { name, tag } = parseWith(plantPatchSchema(id), input);
  return { ...(name === undefined ? {} : { name }), ...(tag === undefined ? {} : { tag }) };
}
