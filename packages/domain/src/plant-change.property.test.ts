import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvalidPlantError } from './errors.ts';
import { toIssue } from './new-plant.schema.ts';
import { INT64_MAX, INT64_MIN, newPlant } from './plant.ts';
import {
  parsePlantPatch,
  parsePlantReplacement,
  plantPatchSchema,
  plantReplacementSchema,
} from './plant-change.schema.ts';

const text = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ unit: 'grapheme', maxLength: 32 }))
  .filter((s) => !s.includes('\0'));

const extras = fc.dictionary(
  fc.string().filter((key) => !['id', 'name', 'tag', '__proto__'].includes(key)),
  fc.jsonValue(),
);

/** RFC 7396's MergePatch(target, patch) for an object patch, on plain JSON objects. */
function mergePatch(
  target: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const result = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  return result;
}

describe('parsePlantPatch and parsePlantReplacement (properties)', () => {
  it('when the body is anything at all, then each returns a change or throws InvalidPlantError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ id: fc.anything(), name: fc.anything(), tag: fc.anything() })),
        (body) => {
          for (const parse of [parsePlantPatch, parsePlantReplacement]) {
            try {
              const change = parse(7n, body);
              expect(change.name === undefined || typeof change.name === 'string').toBe(true);
            } catch (error) {
              expect(error).toBeInstanceOf(InvalidPlantError);
              expect((error as InvalidPlantError).issues.length).toBeGreaterThan(0);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('when a valid patch is applied to a plant, then the plant is what RFC 7396 makes of its name and tag, the other members ignored', () => {
    fc.assert(
      fc.property(
        text,
        fc.option(text, { nil: undefined }),
        fc.record(
          { name: text, tag: fc.option(text, { nil: null }), id: fc.constant(7n) },
          { requiredKeys: [] },
        ),
        extras,
        (name, tag, members, others) => {
          const change = parsePlantPatch(7n, { ...others, ...members });
          const stored = newPlant(7n, name, tag);
          const patched = newPlant(
            7n,
            change.name ?? stored.name,
            change.tag === undefined ? stored.tag : (change.tag ?? undefined),
          );
          const { id: _, ...expected } = mergePatch({ ...stored }, { ...members });
          const { id: __, ...content } = patched;
          expect(content).toStrictEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  // The parsers build no schema per request; the public schemas of an id are the rules they follow.
  it('when the body is anything at all, then each parser answers what the schema of its id does: the same change or the same issues', () => {
    const id = 7n;
    const outcome = (run: () => unknown) => {
      try {
        return { change: run() };
      } catch (error) {
        if (!(error instanceof InvalidPlantError)) throw error;
        return { issues: error.issues };
      }
    };
    const bySchema = (schema: v.GenericSchema, body: unknown, change: (output: never) => unknown) => {
      const result = v.safeParse(schema, body, { abortPipeEarly: true });
      return result.success
        ? { change: change(result.output as never) }
        : { issues: result.issues.map(toIssue) };
    };
    const idMember = fc.oneof(
      fc.constant(id),
      fc.constant(Number(id)),
      fc.bigInt({ min: INT64_MIN - 2n, max: INT64_MAX + 2n }),
      fc.double(),
      fc.string(),
      fc.anything(),
    );
    const member = fc.oneof(text, fc.constant(null), fc.anything());
    const body = fc.oneof(
      fc.anything(),
      fc.record({ id: idMember, name: member, tag: member }, { requiredKeys: [] }),
      fc
        .tuple(fc.record({ id: idMember, name: member, tag: member }, { requiredKeys: [] }), extras)
        .map(([members, other]) => ({ ...other, ...members })),
    );
    fc.assert(
      fc.property(body, (input) => {
        expect(outcome(() => parsePlantReplacement(id, input))).toStrictEqual(
          bySchema(plantReplacementSchema(id), input, ({ name, tag }: { name: string; tag?: string }) => ({
            name,
            tag: tag ?? null,
          })),
        );
        expect(outcome(() => parsePlantPatch(id, input))).toStrictEqual(
          bySchema(plantPatchSchema(id), input, ({ name, tag }: { name?: string; tag?: string | null }) => ({
            ...(name === undefined ? {} : { name }),
            ...(tag === undefined ? {} : { tag }),
          })),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
