import { listPlants, type NewPlant, newPlant, type PlantRepository } from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import { expect, it } from 'vitest';
import { freshIdBand, walkBand } from './id-band.ts';
import { checkTagListingAgainstModel, checkTagPagingUnderChurn } from './listing-properties.ts';
import { SAMPLE_STRINGS } from './sample-strings.ts';

/** A tag no other test or run uses. */
const freshTag = (label = 'tag'): string => `${label} ${randomPlantId()}`;

const byId = (a: NewPlant, b: NewPlant): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Tags a careless store might take for `tag`: the same text normalised otherwise, trimmed, cut, marked. */
function nearMisses(tag: string): string[] {
  const misses = [
    `${tag} `,
    ` ${tag}`,
    `\ufeff${tag}`,
    `${tag}x`,
    tag.normalize('NFC'),
    tag.normalize('NFD'),
    tag.toUpperCase(),
    tag.toLowerCase(),
    Array.from(tag).slice(0, -1).join(''),
  ];
  return [...new Set(misses)].filter((miss) => miss !== tag);
}

/**
 * Listing by tag (listAfter's `tag`), registered in the caller's describe. Each test lists a tag of its
 * own, or a shared tag within an id band of its own, so it holds on a shared store.
 */
export function describeTagListingContract(plants: () => PlantRepository): void {
  it('when plants are listed by a tag, then exactly the plants of that tag come, ascending, each exactly as stored', async () => {
    const tag = freshTag();
    const band = freshIdBand();
    const tagged = [
      newPlant(band.at(9), 'Ivy', tag),
      newPlant(band.at(2), 'Fern', tag),
      newPlant(band.at(5), 'Cafe\u0301 🌵', tag),
    ];
    const others = [
      newPlant(band.at(1), 'no tag'),
      newPlant(band.at(3), 'empty tag', ''),
      newPlant(band.at(4), 'the text NULL', 'NULL'),
      ...nearMisses(tag).map((miss, index) => newPlant(band.at(10 + index), 'near miss', miss)),
    ];
    for (const plant of [...tagged, ...others]) await plants().insertIfAbsent(plant);
    const ascending = [...tagged].sort(byId);
    // Nobody else has this tag: the whole store's listing is known, to its end.
    await expect(plants().listAfter(undefined, 10, undefined, tag)).resolves.toStrictEqual({
      plants: ascending,
      more: false,
    });
    await expect(plants().listAfter(undefined, 2, undefined, tag)).resolves.toStrictEqual({
      plants: ascending.slice(0, 2),
      more: true,
    });
    await expect(plants().listAfter(band.at(2), 1, undefined, tag)).resolves.toStrictEqual({
      plants: ascending.slice(1, 2),
      more: true,
    });
    await expect(plants().listAfter(band.at(5), 5, undefined, tag)).resolves.toStrictEqual({
      plants: ascending.slice(2),
      more: false,
    });
    await expect(plants().listAfter(band.at(9), 5, undefined, tag)).resolves.toStrictEqual({
      plants: [],
      more: false,
    });
  });

  it('when no plant has the tag, then the list is empty and says nothing follows', async () => {
    await expect(plants().listAfter(undefined, 100, undefined, freshTag())).resolves.toStrictEqual({
      plants: [],
      more: false,
    });
  });

  it("when plants are listed by the empty tag '', then only plants with the empty tag come: never those without one", async () => {
    const band = freshIdBand();
    const stored = [
      newPlant(band.at(1), 'no tag'),
      newPlant(band.at(2), 'empty', ''),
      newPlant(band.at(3), 'space', ' '),
      newPlant(band.at(4), 'also no tag'),
      newPlant(band.at(5), 'empty again', ''),
      newPlant(band.at(6), 'the text null', 'null'),
      newPlant(band.at(7), 'U+FEFF', '\ufeff'),
    ];
    for (const plant of stored) await plants().insertIfAbsent(plant);
    for (const limit of [1, 2, 10]) {
      await expect(walkBand(plants(), band, limit, '')).resolves.toStrictEqual([stored[1], stored[4]]);
    }
    await expect(walkBand(plants(), band, 10, 'null')).resolves.toStrictEqual([stored[5]]);
    await expect(walkBand(plants(), band, 10, '\ufeff')).resolves.toStrictEqual([stored[6]]);
  });

  it.each(SAMPLE_STRINGS)(
    'when the tag is %s, then listing by it gives exactly the plants of that tag, not its near misses',
    async (_, tag) => {
      const band = freshIdBand();
      const tagged = [newPlant(band.at(2), 'first', tag), newPlant(band.at(50), tag, tag)];
      const others = [
        newPlant(band.at(1), 'no tag'),
        ...nearMisses(tag).map((miss, index) => newPlant(band.at(10 + index), tag, miss)),
      ];
      for (const plant of [...others, ...tagged]) await plants().insertIfAbsent(plant);
      await expect(walkBand(plants(), band, 1, tag)).resolves.toStrictEqual(tagged);
      await expect(walkBand(plants(), band, 100, tag)).resolves.toStrictEqual(tagged);
    },
  );

  it('when plants of a tag are long (name and tag over 2,000 bytes, up to the body limit) or short, then they list by tag in id order, each exactly as stored', async () => {
    // PostgreSQL keeps the pages of long plants in other indexes than short ones, and a tag over
    // ~2.7 KB cannot be an index key: each kind must list, and as one run.
    const tags = [
      freshTag(),
      `${freshTag('long')} ${'🌿'.repeat(600)}`,
      `${freshTag('60 KiB')}${'é'.repeat(30_000)}`,
    ];
    for (const tag of tags) {
      const band = freshIdBand();
      const stored = [
        // 2,000 bytes of name and tag when the tag is short: the largest short plant.
        newPlant(band.at(1), 'a'.repeat(Math.max(1, 2_000 - Buffer.byteLength(tag))), tag),
        newPlant(band.at(2), 'b'.repeat(2_001), tag),
        newPlant(band.at(3), 'Fern', tag),
        newPlant(band.at(4), 'long '.repeat(10_000), tag),
        newPlant(band.at(5), 'Ivy', tag),
      ];
      const others = [newPlant(band.at(6), 'b'.repeat(2_001), `${tag}x`), newPlant(band.at(7), 'Palm')];
      for (const plant of [...others, ...stored].reverse()) await plants().insertIfAbsent(plant);
      await expect(plants().listAfter(undefined, 10, undefined, tag)).resolves.toStrictEqual({
        plants: stored,
        more: false,
      });
      for (const limit of [1, 2, 4]) {
        await expect(walkBand(plants(), band, limit, tag)).resolves.toStrictEqual(stored);
      }
    }
  });

  it('when a page by tag has a byte budget, then it holds the plants of the tag that fit, stops before the one that would pass it, and always holds one', async () => {
    const tag = freshTag();
    const tagBytes = Buffer.byteLength(tag);
    const stored = [
      newPlant(randomPlantId(), 'a'.repeat(100 - tagBytes), tag),
      newPlant(randomPlantId(), `${'é'.repeat(50)}${'c'.repeat(100 - tagBytes)}`, tag),
      newPlant(randomPlantId(), 'x', tag),
      newPlant(randomPlantId(), 'b'.repeat(5_000), tag),
    ].sort(byId);
    for (const plant of stored) await plants().insertIfAbsent(plant);
    await plants().insertIfAbsent(newPlant(randomPlantId(), 'not listed', `${tag}x`));
    const bytes = stored.map((plant) => Buffer.byteLength(plant.name) + tagBytes);
    const pageWithin = (budget: number): NewPlant[] => {
      const page: NewPlant[] = [];
      let sum = 0;
      for (const [index, plant] of stored.entries()) {
        sum += bytes[index] as number;
        if (page.length > 0 && sum > budget) break;
        page.push(plant);
      }
      return page;
    };
    for (const budget of [
      0,
      bytes[0] as number,
      (bytes[0] as number) + (bytes[1] as number) - 1,
      400,
      10_000,
    ]) {
      const expected = pageWithin(budget);
      await expect(plants().listAfter(undefined, 10, budget, tag), `${budget} bytes`).resolves.toStrictEqual({
        plants: expected,
        more: expected.length < stored.length,
      });
    }
    // The limit still counts, and a page after the first is held to the budget alike.
    await expect(plants().listAfter(undefined, 2, 100_000, tag)).resolves.toStrictEqual({
      plants: stored.slice(0, 2),
      more: true,
    });
    await expect(plants().listAfter(stored[2]?.id, 10, 0, tag)).resolves.toStrictEqual({
      plants: stored.slice(3),
      more: false,
    });
  });

  it('when plants change their tag, lose it or are deleted, then each lists under the tag it holds now, and only there', async () => {
    const [from, to] = [freshTag('from'), freshTag('to')];
    const band = freshIdBand();
    const stored = [1, 2, 3, 4, 5].map((offset) => newPlant(band.at(offset), `plant ${offset}`, from));
    for (const plant of stored) await plants().insertIfAbsent(plant);
    const [p1, p2, p3, p4, p5] = stored as [NewPlant, NewPlant, NewPlant, NewPlant, NewPlant];
    await plants().update(p4.id, { tag: to });
    await plants().update(p2.id, { tag: to, name: 'renamed' });
    await plants().update(p3.id, { tag: null });
    await plants().update(p5.id, { name: 'renamed too' });
    await plants().deleteById(p1.id);
    await expect(plants().listAfter(undefined, 10, undefined, from)).resolves.toStrictEqual({
      plants: [{ ...p5, name: 'renamed too' }],
      more: false,
    });
    await expect(plants().listAfter(undefined, 10, undefined, to)).resolves.toStrictEqual({
      plants: [
        { ...p2, name: 'renamed', tag: to },
        { ...p4, tag: to },
      ],
      more: false,
    });
    await plants().update(p3.id, { tag: to });
    await expect(plants().listAfter(p2.id, 10, undefined, to)).resolves.toStrictEqual({
      plants: [
        { ...p3, tag: to },
        { ...p4, tag: to },
      ],
      more: false,
    });
  });

  it('when listPlants walks pages by tag, then each next page keeps the tag and every plant of it comes once', async () => {
    const tag = freshTag();
    const stored = Array.from({ length: 7 }, () => newPlant(randomPlantId(), 'Fern', tag)).sort(byId);
    for (const plant of stored) await plants().insertIfAbsent(plant);
    await plants().insertIfAbsent(newPlant(randomPlantId(), 'Fern', `${tag} `));
    const seen: NewPlant[] = [];
    let page = await listPlants({ plants: plants() }, { tag, limit: 3 });
    seen.push(...page.plants);
    while (page.next) {
      expect(page.next.tag).toBe(tag);
      page = await listPlants({ plants: plants() }, page.next);
      seen.push(...page.plants);
    }
    expect(seen).toStrictEqual(stored);
  });

  it('when plants of a few tags are created, retagged, renamed and deleted, then every listing by tag agrees with a Map model (property)', async () => {
    await checkTagListingAgainstModel(plants(), 25);
  });

  it('when pages by tag are walked while other tasks create, retag, rename and delete plants, then every plant that holds the tag throughout comes exactly once, ascending, and every plant that comes held it (property)', async () => {
    await checkTagPagingUnderChurn(plants(), 25);
  });
}
