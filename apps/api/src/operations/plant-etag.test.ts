import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plantETag } from './plant-etag.ts';

const plant = fc.record(
  { name: fc.string({ unit: 'grapheme-composite' }), tag: fc.string({ unit: 'grapheme-composite' }) },
  { requiredKeys: ['name'] },
);

describe('the ETag of a plant', () => {
  it('when a plant is tagged, then its ETag is a strong entity-tag: 43 base64url characters in quotes', () => {
    expect(plantETag({ name: 'Monstera', tag: 'aroid' })).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('when the content is fixed, then so is its ETag: a SHA-256 of ["name","tag"], the same on any machine and storage', () => {
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');
    expect(plantETag({ name: 'Monstera', tag: 'aroid' })).toBe(`"${sha256('["Monstera","aroid"]')}"`);
    expect(plantETag({ name: 'Monstera' })).toBe(`"${sha256('["Monstera"]')}"`);
    // A value fixed here, so that a change of the scheme is a decision, not an accident: every replica
    // of a service and every client's stored tag depend on it.
    expect(plantETag({ name: 'Monstera', tag: 'aroid' })).toBe(
      '"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"',
    );
  });

  it.each([
    ['an absent tag and an empty one', { name: 'a' }, { name: 'a', tag: '' }],
    ['the name and the tag swapped', { name: 'a', tag: 'b' }, { name: 'b', tag: 'a' }],
    ['a separator moved between name and tag', { name: 'a","b', tag: 'c' }, { name: 'a', tag: 'b","c' }],
    ['composed and decomposed accents', { name: 'caf\u00e9' }, { name: 'cafe\u0301' }],
    ['a leading U+FEFF', { name: '\ufeffa' }, { name: 'a' }],
  ])('when two contents differ only by %s, then their ETags differ', (_label, one, other) => {
    expect(plantETag(one)).not.toBe(plantETag(other));
  });

  it('when any two contents are compared, then their ETags are equal exactly when the contents are', () => {
    fc.assert(
      fc.property(plant, plant, (one, other) => {
        const same = one.name === other.name && one.tag === other.tag;
        expect(plantETag(one) === plantETag(other)).toBe(same);
        expect(plantETag({ ...one })).toBe(plantETag(one));
      }),
    );
  });
});
