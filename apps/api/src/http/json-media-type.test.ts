import { describe, expect, it } from 'vitest';
import { isUtf8JsonMediaType } from './json-media-type.ts';

describe('isUtf8JsonMediaType', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json ; charset=utf-8',
    'application/json; version=1; charset=utf-8',
    'application/json; q="a;b"',
  ])('when the header is %j, then it is UTF-8 JSON', (header) => {
    expect(isUtf8JsonMediaType(header)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/json',
    'application/json5',
    'application/ld+json',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf8',
    'application/json; charset=utf-16le',
    'application/json; charset="utf-8',
    'application/json; =utf-8',
    'application/json/extra',
    'application /json',
  ])('when the header is %j, then it is refused', (header) => {
    expect(isUtf8JsonMediaType(header)).toBe(false);
  });
});
