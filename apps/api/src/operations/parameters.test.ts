import { parse as parseQueryString } from 'node:querystring';
import {
  getPlant,
  INT64_MAX,
  INT64_MIN,
  InvalidParameterError,
  listPlants,
  MAX_PAGE_LIMIT,
} from '@plant-store/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type OperationContext, parametersReader } from './operation.ts';
import { getPlantOperation, listPlantsOperation } from './plants.ts';

// The parameters as the router reads them: by the operations' descriptions, from a request's path and query.
const readOnePlant = parametersReader(getPlantOperation);
const readList = parametersReader(listPlantsOperation);
const parsePlantIdParameter = (text: unknown): unknown =>
  readOnePlant({ params: { id: text } } as unknown as OperationContext).params.id;
const parseListPlantsParameters = (query: Readonly<Record<string, unknown>>, querystring = ''): unknown =>
  readList({ query, querystring } as unknown as OperationContext).query;

const PLAIN_DECIMAL =
  'must be an integer in plain decimal (digits with an optional leading -; no +, leading zeros, fraction or exponent)';
const INT64 = 'must be an integer between -9223372036854775808 and 9223372036854775807';
const LIMIT = 'must be an integer from 1 to 1000';

function problemsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParameterError);
    return (error as InvalidParameterError).issues.map(({ field, problem }) => `${field}: ${problem}`);
  }
  throw new Error('expected the input to be refused');
}

describe('the id of a plant, read from its path', () => {
  it.each([
    ['0', 0n],
    ['-1', -1n],
    ['9007199254740993', 9007199254740993n],
    ['9223372036854775807', INT64_MAX],
    ['-9223372036854775808', INT64_MIN],
  ])('when the text is %s, then it is the int64 %s exactly', (text, id) => {
    expect(parsePlantIdParameter(text)).toBe(id);
  });

  it.each([
    '',
    '+1',
    '01',
    '-0',
    '00',
    '-',
    '--1',
    '1.0',
    '1.5',
    '1e3',
    ' 1',
    '1 ',
    '0x10',
    '1_000',
    '١٢',
    'Infinity',
    'NaN',
    'abc',
  ])('when the text is %j, then it is refused as not plain decimal', (text) => {
    expect(problemsOf(() => parsePlantIdParameter(text))).toEqual([`id: ${PLAIN_DECIMAL}`]);
  });

  it.each(['9223372036854775808', '-9223372036854775809', '99999999999999999999', '1'.repeat(100_000)])(
    'when the text is the integer %s outside int64, then it is refused as out of range',
    (text) => {
      expect(problemsOf(() => parsePlantIdParameter(text))).toEqual([`id: ${INT64}`]);
    },
  );

  it('when the id is the `after` of a list, then the error names after', () => {
    expect(() => parseListPlantsParameters({ after: 'x' })).toThrow(
      `invalid parameter: after ${PLAIN_DECIMAL}`,
    );
  });

  it('when any int64 is written in decimal, then it reads back exactly (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (id) => {
        expect(parsePlantIdParameter(String(id))).toBe(id);
      }),
      { numRuns: 1000 },
    );
  });

  it('when the text is anything at all, then it is an int64 whose decimal text it is, or InvalidParameterError (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[-+0-9.e ]{0,22}$/), fc.bigInt().map(String)),
        (text) => {
          try {
            expect(String(parsePlantIdParameter(text))).toBe(text);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidParameterError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('the parameters of a list, read from its query', () => {
  it('when no parameter is given, then the query is empty (listPlants fills in the default limit)', () => {
    expect(parseListPlantsParameters({})).toStrictEqual({});
  });

  it('when limit and after are given as text, then they are read exactly', () => {
    expect(parseListPlantsParameters({ limit: '1000', after: '-9223372036854775808' })).toStrictEqual({
      limit: 1000,
      after: INT64_MIN,
    });
    expect(parseListPlantsParameters({ limit: '1' })).toStrictEqual({ limit: 1 });
  });

  it('when unknown parameters are given, then they are ignored', () => {
    expect(parseListPlantsParameters({ sort: 'desc', offset: '-1', limit: '5' })).toStrictEqual({ limit: 5 });
  });

  it('when the query comes from node:querystring (a null-prototype object), then it is read as any other', () => {
    expect(parseListPlantsParameters(parseQueryString('limit=7&after=9007199254740993&x=1'))).toStrictEqual({
      limit: 7,
      after: 9007199254740993n,
    });
  });

  it.each(['0', '1001', '01', '+5', '5.0', '1e2', '', ' 5', '-1', '99999', 'ten'])(
    'when limit is %j, then it is refused naming limit',
    (limit) => {
      expect(problemsOf(() => parseListPlantsParameters({ limit }))).toEqual([`limit: ${LIMIT}`]);
    },
  );

  it.each([
    ['+1', PLAIN_DECIMAL],
    ['', PLAIN_DECIMAL],
    ['1.0', PLAIN_DECIMAL],
    ['9223372036854775808', INT64],
  ])('when after is %j, then it is refused naming after', (after, problem) => {
    expect(problemsOf(() => parseListPlantsParameters({ after }))).toEqual([`after: ${problem}`]);
  });

  it('when a parameter is given twice, then it is refused as given more than once', () => {
    expect(
      problemsOf(() => parseListPlantsParameters(parseQueryString('limit=1&limit=2&after=1&after=2'))),
    ).toEqual(['limit: must be given once', 'after: must be given once']);
  });

  it('when both parameters are bad, then the message names both', () => {
    expect(() => parseListPlantsParameters({ limit: '0', after: 'x' })).toThrow(
      `invalid parameter: limit ${LIMIT}; after ${PLAIN_DECIMAL}`,
    );
  });
});

describe('the tag of a list, read from its query', () => {
  it.each(['aroid', '', ' a b ', 'caf\u00e9 \u{1F335}', '\ufffd', 'x'.repeat(10_000)])(
    'when tag is %j, then it is that text exactly',
    (tag) => {
      expect(parseListPlantsParameters({ tag }, `tag=${encodeURIComponent(tag)}`)).toStrictEqual({ tag });
    },
  );

  it.each([
    ['given twice', { tag: ['a', 'b'] }, 'tag=a&tag=b', 'tag: must be given once'],
    ['holding NUL', { tag: 'a\u0000' }, 'tag=a%00', 'tag: must not contain the NUL character (U+0000)'],
    ['not UTF-8 once decoded', { tag: 'a\ufffd' }, 'tag=a%FF', 'tag: must be UTF-8 once percent-decoded'],
  ])('when tag is %s, then it is refused naming tag', (_label, query, querystring, problem) => {
    expect(problemsOf(() => parseListPlantsParameters(query, querystring))).toEqual([problem]);
  });

  it('when another parameter is not UTF-8 once decoded, then only the tag is looked at: the others are text the schemas refuse or ignore', () => {
    expect(parseListPlantsParameters({ colour: '\ufffd', tag: 'a' }, 'colour=%FF&tag=a')).toStrictEqual({
      tag: 'a',
    });
    expect(problemsOf(() => parseListPlantsParameters({ limit: '\ufffd' }, 'limit=%FF'))).toEqual([
      'limit: must be UTF-8 once percent-decoded',
    ]);
  });
});

describe('the words of a refusal, whether a parameter comes as text or as a value', () => {
  async function refusalOf(use: Promise<unknown>): Promise<string[]> {
    const error = await use.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidParameterError);
    return (error as InvalidParameterError).issues.map(({ field, problem }) => `${field}: ${problem}`);
  }
  const noPlants = { findById: async () => undefined, listAfter: async () => ({ plants: [], more: false }) };

  it('when an id is out of int64, then its text is refused in the words the domain refuses its value with', async () => {
    const byValue = await refusalOf(getPlant({ plants: noPlants }, INT64_MAX + 1n));
    expect(problemsOf(() => parsePlantIdParameter(String(INT64_MAX + 1n)))).toEqual(byValue);
    expect(problemsOf(() => parsePlantIdParameter('1'.repeat(21)))).toEqual(byValue);
  });

  it('when a limit is out of 1 to 1000, then its text is refused in the words the domain refuses its value with', async () => {
    const byValue = await refusalOf(listPlants({ plants: noPlants }, { limit: MAX_PAGE_LIMIT + 1 }));
    expect(problemsOf(() => parseListPlantsParameters({ limit: String(MAX_PAGE_LIMIT + 1) }))).toEqual(
      byValue,
    );
    expect(problemsOf(() => parseListPlantsParameters({ limit: '0' }))).toEqual(byValue);
  });
});
