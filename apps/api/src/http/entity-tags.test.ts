import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type EntityTag, matchesStrongly, matchesWeakly, parseEntityTagList } from './entity-tags.ts';

const strong = (opaque: string): EntityTag => ({ weak: false, opaque: `"${opaque}"` });
const weak = (opaque: string): EntityTag => ({ weak: true, opaque: `"${opaque}"` });

describe('an entity-tag list (RFC 9110 section 8.8.3)', () => {
  it.each([
    ['"xyzzy"', [strong('xyzzy')]],
    ['"xyzzy", "r2d2xxxx", "c3piozzzz"', [strong('xyzzy'), strong('r2d2xxxx'), strong('c3piozzzz')]],
    ['W/"xyzzy", W/"r2d2xxxx"', [weak('xyzzy'), weak('r2d2xxxx')]],
    ['""', [strong('')]],
    ['W/""', [weak('')]],
    // Empty list elements are skipped (section 5.6.1), whitespace around commas is optional.
    [', ,"a",,\t"b" ,', [strong('a'), strong('b')]],
    ['"a","b"', [strong('a'), strong('b')]],
    ['', []],
    [' , ', []],
    // What Node makes of two If-Match lines: one list.
    ['"a", W/"b"', [strong('a'), weak('b')]],
    // Every etagc: `!`, %x23-7E (a backslash and a W among them), obs-text as Node hands it over.
    ['"!#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~"', [strong("!#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~")]],
    ['"caf\u00e9\u00ff\u0080"', [strong('caf\u00e9\u00ff\u0080')]],
  ])('when the field is %j, then it is the list %j', (field, tags) => {
    expect(parseEntityTagList(field)).toEqual(tags);
  });

  it.each(['*', ' *', '* ', '\t*\t'])('when the field is %j, then it is *', (field) => {
    expect(parseEntityTagList(field)).toBe('*');
  });

  it.each([
    ['unquoted', 'xyzzy'],
    ['a quote left open', '"xyzzy'],
    ['two tags without a comma', '"a" "b"'],
    ['text after a tag', '"a"b'],
    ['w/ in lower case', 'w/"a"'],
    ['space after W/', 'W/ "a"'],
    ['W without its slash', 'W"a"'],
    ['a space inside', '"a b"'],
    ['a control character inside', '"a\u0001b"'],
    ['a quote inside, escaped as in a quoted-string', '"a\\"b"'],
    ['a character beyond obs-text', '"\u0100"'],
    ['* in a list', '*, "a"'],
    ['* after a tag', '"a", *'],
    ['two *', '*, *'],
    ['a weak * ', 'W/*'],
  ])(
    'when the field has %s (%j), then it cannot be read: undefined, which matches nothing',
    (_label, field) => {
      expect(parseEntityTagList(field)).toBeUndefined();
      expect(matchesStrongly(parseEntityTagList(field), '"a"')).toBe(false);
      expect(matchesWeakly(parseEntityTagList(field), '"a"')).toBe(false);
    },
  );

  it('when a list fills a header to the 16 KiB Node takes, then each of its tags is read; one bad byte at its end makes it unreadable', () => {
    const opaques = Array.from({ length: 1_500 }, (_, index) => `tag-${index}`);
    const field = opaques.map((opaque) => `"${opaque}"`).join(', ');
    expect(field.length).toBeGreaterThan(16_000);
    expect(parseEntityTagList(field)).toEqual(opaques.map(strong));
    expect(parseEntityTagList(`${field} x`)).toBeUndefined();
    expect(parseEntityTagList(`${'"'.repeat(16_000)}`)).toBeUndefined();
    expect(parseEntityTagList(','.repeat(16_000))).toEqual([]);
  });

  const etagChar = fc.oneof(
    fc.constantFrom('!', '\u0080', '\u00ff', 'W', '/', '*', ',', '\\'),
    fc.integer({ min: 0x23, max: 0x7e }).map((code) => String.fromCharCode(code)),
  );
  const entityTag = fc.record({
    weak: fc.boolean(),
    opaque: fc.string({ unit: etagChar }).map((text) => `"${text}"`),
  });
  const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });

  it('when any list is written with any whitespace and empty elements, then it reads back as its tags, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(entityTag, whitespace, whitespace, fc.nat({ max: 2 }))),
        whitespace,
        (items, lead) => {
          const field =
            lead +
            items
              .map(([tag, before, after, empties]) =>
                [
                  `${before}${tag.weak ? 'W/' : ''}${tag.opaque}${after}`,
                  ...Array(empties).fill(before),
                ].join(','),
              )
              .join(',');
          expect(parseEntityTagList(field)).toEqual(items.map(([tag]) => tag));
        },
      ),
    );
  });

  it('when the field is any text at all, then reading it answers a list, *, or undefined, and never throws', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('"', 'W', '/', ',', ' ', '*', 'a', '\t', '\u0001') }),
        (field) => {
          const list = parseEntityTagList(field);
          expect(list === undefined || list === '*' || Array.isArray(list)).toBe(true);
        },
      ),
    );
  });
});

describe('comparing entity-tags (RFC 9110 section 8.8.3.2)', () => {
  // The service's own tag is always strong; the table's rows with it on one side.
  it.each([
    ['W/"1"', '"1"', false, true],
    ['"1"', '"1"', true, true],
    ['W/"2"', '"1"', false, false],
    ['"2"', '"1"', false, false],
    ['"1 "', '"1"', false, false],
  ])(
    'when a request names %s and the tag is %s, then strong: %s, weak: %s',
    (field, current, isStrong, isWeak) => {
      expect(matchesStrongly(parseEntityTagList(field), current)).toBe(isStrong);
      expect(matchesWeakly(parseEntityTagList(field), current)).toBe(isWeak);
    },
  );

  it('when the list is *, then both comparisons match any tag', () => {
    expect(matchesStrongly('*', '"x"')).toBe(true);
    expect(matchesWeakly('*', '"x"')).toBe(true);
  });

  it('when the tag is one of several, then it matches; an empty list matches nothing', () => {
    expect(matchesStrongly(parseEntityTagList('"a", "b", "c"'), '"b"')).toBe(true);
    expect(matchesStrongly(parseEntityTagList('"a", W/"b"'), '"b"')).toBe(false);
    expect(matchesWeakly(parseEntityTagList('"a", W/"b"'), '"b"')).toBe(true);
    expect(matchesStrongly(parseEntityTagList(''), '"b"')).toBe(false);
    expect(matchesWeakly(parseEntityTagList(''), '"b"')).toBe(false);
  });
});
