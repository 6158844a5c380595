import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidPlantError } from './errors.ts';
import { parseNewPlant } from './new-plant.schema.ts';
import { INT64_MAX, INT64_MIN } from './plant.ts';

const text = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ unit: 'grapheme', maxLength: 32 }))
  .filter((s) => !s.includes('\0'));

describe('parseNewPlant (properties)', () => {
  it('when the input is anything at all, then it returns a NewPlant or throws InvalidPlantError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ id: fc.anything(), name: fc.anything(), tag: fc.anything() })),
        (input) => {
          try {
            const plant = parseNewPlant(input);
            expect(typeof plant.id).toBe('bigint');
            expect(typeof plant.name).toBe('string');
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidPlantError);
            expect((error as InvalidPlantError).issues.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('when the input is a valid NewPlant with any extra fields, then it comes back exactly, without the extras', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
        text,
        fc.option(text, { nil: undefined }),
        fc.dictionary(
          fc.string().filter((key) => !['id', 'name', 'tag', '__proto__'].includes(key)),
          fc.jsonValue(),
        ),
        (id, name, tag, extras) => {
          const plant = tag === undefined ? { id, name } : { id, name, tag };
          expect(parseNewPlant({ ...extras, ...plant })).toStrictEqual(plant);
        },
      ),
      { numRuns: 300 },
    );
  });
});
