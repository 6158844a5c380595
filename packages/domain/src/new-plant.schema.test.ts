import { describe, expect, it } from 'vitest';
import { InvalidPlantError } from './errors.ts';
import { NewPlantObjectSchema, NewPlantSchema, PlantIdSchema, parseNewPlant } from './new-plant.schema.ts';
import { INT64_MAX, INT64_MIN } from './plant.ts';

function problemsOf(input: unknown): string[] {
  try {
    parseNewPlant(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPlantError);
    return (error as InvalidPlantError).issues.map(({ field, problem }) => `${field}: ${problem}`);
  }
  throw new Error('expected the input to be refused');
}

describe('parseNewPlant', () => {
  it('when id, name and tag are valid, then it returns them as a NewPlant', () => {
    expect(parseNewPlant({ id: 7n, name: 'Monstera', tag: 'aroid' })).toEqual({
      id: 7n,
      name: 'Monstera',
      tag: 'aroid',
    });
  });

  it('when tag is absent, then the plant has no tag key at all', () => {
    const plant = parseNewPlant({ id: 1n, name: 'Fern' });
    expect(Object.keys(plant)).toEqual(['id', 'name']);
  });

  it('when tag and name are empty strings, then they are kept as empty strings', () => {
    expect(parseNewPlant({ id: 1n, name: '', tag: '' })).toEqual({ id: 1n, name: '', tag: '' });
  });

  it('when strings carry spaces, emoji or decomposed accents, then they are kept exactly', () => {
    const name = '  Cafe\u0301 🌵 \u200f ';
    expect(parseNewPlant({ id: 1n, name, tag: '\t' })).toEqual({ id: 1n, name, tag: '\t' });
  });

  it('when unknown fields are sent, then they are ignored', () => {
    expect(parseNewPlant({ id: 1n, name: 'Fern', color: 'green', id2: 3 })).toEqual({ id: 1n, name: 'Fern' });
  });

  it.each([INT64_MIN, INT64_MIN + 1n, -1n, 0n, 2n ** 53n + 1n, INT64_MAX])(
    'when id is the int64 %s, then it is kept exactly',
    (id) => {
      expect(parseNewPlant({ id, name: 'x' }).id).toBe(id);
    },
  );

  it('when a JavaScript caller passes a safe integer number, then it becomes the same bigint', () => {
    expect(parseNewPlant({ id: 42, name: 'x' }).id).toBe(42n);
    expect(parseNewPlant({ id: -(2 ** 53) + 1, name: 'x' }).id).toBe(-(2n ** 53n) + 1n);
  });

  it.each([
    [INT64_MAX + 1n, 'id: must be an integer between -9223372036854775808 and 9223372036854775807'],
    [INT64_MIN - 1n, 'id: must be an integer between -9223372036854775808 and 9223372036854775807'],
    [1e300, 'id: must be an integer between -9223372036854775808 and 9223372036854775807'],
    [Number.POSITIVE_INFINITY, 'id: must be an integer between -9223372036854775808 and 9223372036854775807'],
    [1.5, 'id: must be an integer, without a fractional part'],
    [2 ** 60, 'id: must be passed as a bigint: a number beyond 2^53 is not exact'],
    ['7', 'id: must be an integer, not a string'],
    [null, 'id: must be an integer, not null'],
    [true, 'id: must be an integer, not a boolean'],
    [[1], 'id: must be an integer, not an array'],
  ])('when id is %s, then it is refused with a message that says why', (id, problem) => {
    expect(problemsOf({ id, name: 'x' })).toEqual([problem]);
  });

  it.each([
    [{ id: 1n }, ['name: is required']],
    [{ name: 'x' }, ['id: is required']],
    [{}, ['id: is required', 'name: is required']],
    [{ id: 1n, name: null }, ['name: must be a string, not null']],
    [{ id: 1n, name: 5n }, ['name: must be a string, not a number']],
    [{ id: 1n, name: { first: 'a' } }, ['name: must be a string, not an object']],
    [{ id: 1n, name: 'x', tag: null }, ['tag: must be a string, not null']],
    [{ id: 1n, name: 'x', tag: ['a'] }, ['tag: must be a string, not an array']],
    [{ id: 1n, name: 'a\u0000b' }, ['name: must not contain the NUL character (U+0000)']],
    [
      { id: 1n, name: 'x', tag: '\ud800' },
      ['tag: must be well-formed Unicode (it contains a lone surrogate)'],
    ],
    [{ id: 'a', name: 7n }, ['id: must be an integer, not a string', 'name: must be a string, not a number']],
  ])('when the fields are %o, then each bad field is named with its problem', (input, problems) => {
    expect(problemsOf(input)).toEqual(problems);
  });

  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['plant', 'a string'],
    [7n, 'a number'],
    [false, 'a boolean'],
  ])('when the input is %o rather than an object, then it is refused as %s', (input, what) => {
    expect(problemsOf(input)).toEqual([`: must be a JSON object, not ${what}`]);
  });

  it('when the input is refused, then the error message names the field and the problem', () => {
    expect(() => parseNewPlant({ id: 1n, name: null })).toThrow(
      'invalid plant: name must be a string, not null',
    );
  });
});

describe('the schemas the domain exports', () => {
  it('when the NewPlant object schema is read, then its fields are the rules NewPlantSchema parses with', () => {
    expect(Object.keys(NewPlantObjectSchema.entries)).toEqual(['id', 'name', 'tag']);
    expect(NewPlantObjectSchema.entries.id).toBe(PlantIdSchema);
    expect(NewPlantSchema.pipe).toContain(NewPlantObjectSchema);
  });
});
