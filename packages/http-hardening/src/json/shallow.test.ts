import {
  fractionSourceArbitrary,
  int64SourceArbitrary,
} from '@plant-store/test-support/json-number-arbitraries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonShallow } from './shallow.ts';

const MEMBERS: ReadonlySet<string> = new Set(['id', 'name', 'tag']);
const read = (text: string) => parseJsonShallow(text, MEMBERS);

/** Whether JSON.parse takes the text: the reference the reader must agree with. */
function jsonParseAccepts(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function readerAccepts(text: string): boolean {
  try {
    read(text);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return false;
  }
}

describe('parseJsonShallow', () => {
  it('when a top-level object has members, then the named ones are built and the others left out', () => {
    expect(
      read('{"id":9223372036854775807,"name":"Monstera","list":[1,2.0],"nested":{"n":9007199254740993}}'),
    ).toEqual({ id: 9223372036854775807n, name: 'Monstera' });
  });

  it('when a named member holds an array or an object, then it is an empty one of its kind', () => {
    expect(read('{"id":[1,[2]],"name":{"first":"a"},"tag":[]}')).toEqual({ id: [], name: {}, tag: [] });
  });

  it('when values are strings, true, false or null, then they are as JSON.parse builds them', () => {
    expect(read('{"id":null,"name":"x\\u0000y\\ud800\\n\\"\\/","tag":true}')).toEqual({
      id: null,
      name: 'x\u0000y\ud800\n"/',
      tag: true,
    });
    expect(read('{"tag":false}')).toEqual({ tag: false });
  });

  it('when numbers are integers in any spelling, then they are exact bigints; fractions stay numbers', () => {
    expect(read('{"id":-3e0,"name":2.0,"tag":0.5}')).toEqual({ id: -3n, name: 2n, tag: 0.5 });
  });

  it('when strings look like numbers, then they stay strings', () => {
    expect(read('{"id":"7","name":"1e3"}')).toEqual({ id: '7', name: '1e3' });
  });

  it('when the same name appears twice, then the last one wins, as in JSON.parse', () => {
    expect(read('{"id":1,"name":"a","id":2}')).toEqual({ id: 2n, name: 'a' });
    expect(Object.keys(read('{"name":"a","id":1,"name":"b"}') as object)).toEqual(['name', 'id']);
  });

  it('when a name is written with escapes, then it is the name it decodes to', () => {
    expect(read('{"\\u0069d":7,"n\\u0061me":"a","\\u0074\\u0061\\u0067":"t","i\\u0064x":1}')).toEqual({
      id: 7n,
      name: 'a',
      tag: 't',
    });
  });

  it('when a member to build is named __proto__, then it is an own member, as JSON.parse makes it', () => {
    const object = parseJsonShallow('{"__proto__":{"polluted":true},"id":1}', new Set(['__proto__', 'id']));
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.keys(object as object)).toEqual(['__proto__', 'id']);
  });

  it('when the top level is not an object, then an array is empty, and a scalar is itself', () => {
    expect(read(' [1, {"id": 2}] ')).toEqual([]);
    expect(read('"text"')).toBe('text');
    expect(read('-9223372036854775809')).toBe(-9223372036854775809n);
    expect(read('null')).toBeNull();
    expect(read('{}')).toEqual({});
  });

  it('when the text is nested 100,000 deep, then it is read without recursion', () => {
    const depth = 100_000;
    expect(read(`{"id":1,"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`)).toEqual({ id: 1n });
    expect(read(`{"id":1,"deep":${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}}`)).toEqual({ id: 1n });
    expect(() => read(`{"id":1,"deep":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`)).toThrow(
      /unexpected character "}" at position 200014/,
    );
  });

  it.each([
    ['', 'unexpected end of the text at position 0'],
    ['{', 'unexpected end of the text at position 1'],
    ['{} {}', 'unexpected character "{" at position 3'],
    ['{"a":1} x', 'unexpected character "x" at position 8'],
    ['/* c */ {}', 'unexpected character "/" at position 0'],
    ["{'a':1}", 'unexpected character "\'" at position 1'],
    ['[1,]', 'unexpected character "]" at position 3'],
    ['{"a":1,}', 'unexpected character "}" at position 7'],
    ['{"a" 1}', 'unexpected character "1" at position 5'],
    ['{"a":[1}', 'unexpected character "}" at position 7'],
    ['[}', 'unexpected character "}" at position 1'],
    ['01', 'unexpected character "1" at position 1'],
    ['1.', 'unexpected end of the text at position 2'],
    ['.5', 'unexpected character "." at position 0'],
    ['+1', 'unexpected character "+" at position 0'],
    ['-', 'unexpected end of the text at position 1'],
    ['1e+', 'unexpected end of the text at position 3'],
    ['NaN', 'unexpected character "N" at position 0'],
    ['Infinity', 'unexpected character "I" at position 0'],
    ['tru', 'unexpected end of the text at position 3'],
    ['nul!', 'unexpected character "!" at position 3'],
    ['"\\x"', 'unexpected character "x" at position 2'],
    ['"\\u12g4"', 'unexpected character "g" at position 5'],
    ['"a\tb"', 'unexpected character "\\t" at position 2'],
    ['"abc', 'unexpected end of the text at position 4'],
    ['\uFEFF{}', 'unexpected character "\uFEFF" at position 0'],
    ['{"id":1}\u00a0', 'unexpected character "\u00a0" at position 8'],
  ])('when the text is %j, then it throws a SyntaxError: %s', (text, message) => {
    expect(() => read(text)).toThrow(new SyntaxError(message));
    expect(jsonParseAccepts(text)).toBe(false);
  });
});

// JSON.parse is the reference: the reader takes exactly the texts it takes.
const JSON_ALPHABET = [...'{}[]":,.-+eE0123456789 \t\n\r\\/ubfnrtalsxA\u0000\u001f\u00e9\ud800'];

const mutatedJsonArbitrary = fc
  .tuple(
    fc.json({ depthSize: 'medium' }),
    fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...JSON_ALPHABET)), { maxLength: 3 }),
  )
  .map(([text, edits]) => {
    let mutated = text;
    for (const [where, kind, character] of edits) {
      const at = where % (mutated.length + 1);
      if (kind === 0) mutated = mutated.slice(0, at) + character + mutated.slice(at);
      else if (kind === 1) mutated = mutated.slice(0, at) + mutated.slice(at + 1);
      else mutated = mutated.slice(0, at) + character + mutated.slice(at + 1);
    }
    return mutated;
  });

describe('parseJsonShallow against JSON.parse (properties)', () => {
  it('when the text is any JSON, then it is read, and its named members are what JSON.parse makes of them', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('id', 'name', 'tag', 'other', ''), fc.jsonValue(), { maxKeys: 5 }),
        fc.constantFrom('', ' ', '\n\t', '\r\n  '),
        (object, space) => {
          const text = JSON.stringify(object, null, space);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const read = parseJsonShallow(text, MEMBERS) as Record<string, unknown>;
          expect(Object.keys(read)).toEqual(Object.keys(parsed).filter((key) => MEMBERS.has(key)));
          for (const [key, value] of Object.entries(read)) {
            const expected = parsed[key];
            if (Array.isArray(expected)) expect(value).toEqual([]);
            else if (typeof expected === 'object' && expected !== null) expect(value).toEqual({});
            else if (typeof value === 'bigint') expect(Number(value) === expected).toBe(true);
            else expect(value).toBe(expected);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('when JSON text is mutated, then the reader takes it exactly when JSON.parse does', () => {
    fc.assert(
      fc.property(mutatedJsonArbitrary, (text) => {
        expect(readerAccepts(text)).toBe(jsonParseAccepts(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('when the text is any string of JSON characters, then the reader takes it exactly when JSON.parse does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...JSON_ALPHABET), maxLength: 24 }), (text) => {
        expect(readerAccepts(text)).toBe(jsonParseAccepts(text));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('int64 members read from any JSON spelling (properties)', () => {
  it('when a member has a non-zero fractional part, whatever its size and spelling, then it is a number with a fractional part, never a whole one', () => {
    fc.assert(
      fc.property(fractionSourceArbitrary, (source) => {
        const { id } = read(`{"id":${source},"name":"x"}`) as { id: unknown };
        expect(typeof id).toBe('number');
        expect(Number.isInteger(id)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('when a member is a whole number in int64, in any spelling, then it is exactly that bigint', () => {
    fc.assert(
      fc.property(int64SourceArbitrary, ({ source, value }) => {
        expect(read(`{"id":${source},"name":"x"}`)).toEqual({ id: value, name: 'x' });
      }),
      { numRuns: 2_000 },
    );
  });
});
