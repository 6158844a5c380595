import { describe, expect, it } from 'vitest';
import { INSERT_PLANT, INSERT_PLANTS, LIST_AFTER } from './plant-statements.ts';
import { summarizeSql } from './query-summary.ts';

describe('summarizeSql', () => {
  it.each([
    ['a select of one table', 'select "id" from "plants" where "id" = $1', 'SELECT plants'],
    ['a schema-qualified table', 'select * from "shop"."plants"', 'SELECT shop.plants'],
    ['an insert with a column list', INSERT_PLANT.sql, 'INSERT plants'],
    ['an insert from a function (unnest)', INSERT_PLANTS.sql, 'INSERT plants SELECT'],
    [
      'a join',
      'select * from plants p join plant_events e on e.plant_id = p.id',
      'SELECT plants plant_events',
    ],
    ['a row lock', 'select * from plant_events for update skip locked', 'SELECT plant_events'],
    [
      'an upsert',
      'insert into plants (id) values ($1) on conflict (id) do update set id = $1',
      'INSERT plants UPDATE',
    ],
    [
      'a word of an operation inside a string or a quoted name',
      `select 'delete from x' as "update" from t`,
      'SELECT t',
    ],
    ['no operation of its own', 'create index plants_page on plants (id)', 'CREATE'],
    ['the list page (nested selects)', LIST_AFTER.sql, 'SELECT plants SELECT plants'],
    [
      'selects nested with no table between them',
      'select * from (select * from (select id from plants) a) b',
      'SELECT plants',
    ],
  ])(
    'when the statement is %s, then the summary names its operations and tables in order',
    (_, text, summary) => {
      expect(summarizeSql(text)).toBe(summary);
    },
  );

  it('when a statement has many operations, then the summary stays within 255 characters, cut between words', () => {
    const summary = summarizeSql(Array.from({ length: 40 }, () => LIST_AFTER.sql).join('; '));
    expect(summary.length).toBeLessThanOrEqual(255);
    expect(summary.endsWith(' ')).toBe(false);
    expect(summary.startsWith('SELECT plants SELECT plants')).toBe(true);
  });
});
