import { describe, expect, it } from 'vitest';
import { parametersNotUtf8 } from './query-utf8.ts';

describe('query values that are not UTF-8 once percent-decoded', () => {
  it.each([
    ['tag=%FF', ['tag']],
    ['tag=ab%C3', ['tag']],
    ['tag=%ED%A0%80', ['tag']],
    ['limit=1&tag=%C0%AF&after=2', ['tag']],
    ['t%61g=%FF', ['tag']],
    ['tag=%FF&tag=%FE&x=%80', ['tag', 'x']],
  ])('when the query is %s, then %j are named', (query, names) => {
    expect([...parametersNotUtf8(query)]).toEqual(names);
  });

  it.each([
    'tag=%EF%BF%BD',
    'tag=%E2%82%AC+and+%F0%9F%8C%B5',
    'tag=caf%C3%A9',
    'tag=%',
    'tag=%G1',
    'tag=',
    'tag',
    '',
    'limit=1&after=2',
  ])(
    'when the query is %s, then none is named: U+FFFD sent as UTF-8 is a character, a lone %% is itself',
    (query) => {
      expect([...parametersNotUtf8(query)]).toEqual([]);
    },
  );
});
