import {
  type InsertOutcome,
  type NewPlant,
  type PlantRepository,
  type PlantStorage,
  StorageUnavailableError,
} from '@plant-store/domain';
import { randomPlantId } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeByteOrderMarkContract } from './byte-order-mark-contract.ts';
import { describeChangingContract } from './changing-contract.ts';
import { describeDeletingContract } from './deleting-contract.ts';
import { describeEventsContract, describeNoEventsContract } from './events-contract.ts';
import { describeListingContract } from './listing-contract.ts';
import { describePageBytesContract } from './page-bytes-contract.ts';
import { checkCreatePlantAgainstModel, checkRoundTrip } from './plant-properties.ts';
import { BOUNDARY_IDS, SAMPLE_STRINGS } from './sample-strings.ts';
import { storeOrKeep } from './store-or-keep.ts';
import { describeTagListingContract } from './tag-listing-contract.ts';

/** How the contract reaches an adapter. */
export interface PlantStorageHarness {
  /**
   * Opens the adapter's store. Called several times; for a durable adapter every call opens the
   * same underlying store, and the contract closes each storage before it opens the next.
   */
  open(options?: { readonly events?: boolean }): Promise<PlantStorage>;
  /** true when open() after close() sees the same stored plants */
  durable: boolean;
}

function winnerOf(outcomes: readonly InsertOutcome[], attempts: readonly NewPlant[]): NewPlant {
  const index = outcomes.findIndex((outcome) => outcome.inserted);
  const winner = attempts[index];
  if (!winner) throw new Error('no insert won');
  return winner;
}

/**
 * The one suite every PlantRepository adapter runs. It uses fresh random ids and never cleans
 * the store, so its tests are independent and it can run against a store that is in use.
 */
export function describePlantRepositoryContract(adapterName: string, harness: PlantStorageHarness): void {
  describe(`PlantRepository contract: ${adapterName}`, () => {
    describe('on an open store', () => {
      let storage: PlantStorage | undefined;
      const plants = (): PlantRepository => {
        if (!storage) throw new Error('the store did not open');
        return storage.plants;
      };

      beforeAll(async () => {
        storage = await harness.open();
      });
      afterAll(async () => {
        await storage?.close();
      });

      it('when checkReady is called, then it resolves', async () => {
        await expect(storage?.checkReady()).resolves.toBeUndefined();
      });

      it('when a plant is created, then findById returns exactly it', async () => {
        const plant = { id: randomPlantId(), name: 'Monstera', tag: 'aroid' };
        await expect(plants().insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
        await expect(plants().findById(plant.id)).resolves.toStrictEqual(plant);
      });

      it('when a plant has no tag, then it comes back without a tag key', async () => {
        const plant = { id: randomPlantId(), name: 'Fern' };
        await plants().insertIfAbsent(plant);
        const found = await plants().findById(plant.id);
        expect(found).toStrictEqual(plant);
        expect(found && Object.keys(found)).toEqual(['id', 'name']);
      });

      it("when a plant has an empty tag '', then it comes back with tag ''", async () => {
        const plant = { id: randomPlantId(), name: 'Fern', tag: '' };
        await plants().insertIfAbsent(plant);
        await expect(plants().findById(plant.id)).resolves.toStrictEqual(plant);
      });

      it('when an id is unknown, then findById returns undefined', async () => {
        await expect(plants().findById(randomPlantId())).resolves.toBeUndefined();
      });

      it.each(BOUNDARY_IDS)('when the id is the int64 %s, then it round-trips exactly', async (id) => {
        // Boundary ids are fixed, so another test or run may have stored them first: either way
        // the plant found must carry exactly this id and what the insert reported.
        const stored = await storeOrKeep(plants(), { id, name: `boundary ${id}` });
        expect(stored.id).toBe(id);
        await expect(plants().findById(id)).resolves.toStrictEqual(stored);
      });

      it('when two ids differ only beyond 2^53, then they are two distinct plants', async () => {
        // Above 2^60 a float64 steps by 256: base (a multiple of 256) and base + 1 are one number
        // there, so a store that passes ids through a number merges them.
        const base = 2n ** 60n + (BigInt.asUintN(40, randomPlantId()) << 8n);
        const first = { id: base, name: 'even' };
        const second = { id: base + 1n, name: 'odd' };
        expect(Number(first.id)).toBe(Number(second.id));
        await expect(plants().insertIfAbsent(first)).resolves.toStrictEqual({ inserted: true });
        await expect(plants().insertIfAbsent(second)).resolves.toStrictEqual({ inserted: true });
        await expect(plants().findById(first.id)).resolves.toStrictEqual(first);
        await expect(plants().findById(second.id)).resolves.toStrictEqual(second);
      });

      it.each(SAMPLE_STRINGS)('when name and tag are %s, then they round-trip exactly', async (_, text) => {
        const plant = { id: randomPlantId(), name: text, tag: text };
        await expect(plants().insertIfAbsent(plant)).resolves.toStrictEqual({ inserted: true });
        const found = await plants().findById(plant.id);
        expect(found).toStrictEqual(plant);
        expect(found?.name.length).toBe(text.length);
      });

      it('when names differ only in Unicode normalisation (NFC, NFD), then both are kept as they were sent', async () => {
        const composed = { id: randomPlantId(), name: 'Caf\u00e9' };
        const decomposed = { id: randomPlantId(), name: 'Cafe\u0301' };
        await plants().insertIfAbsent(composed);
        await plants().insertIfAbsent(decomposed);
        await expect(plants().findById(composed.id)).resolves.toStrictEqual(composed);
        await expect(plants().findById(decomposed.id)).resolves.toStrictEqual(decomposed);
      });

      it('when the same plant is inserted again, then it reports the stored plant and changes nothing', async () => {
        const plant = { id: randomPlantId(), name: 'Fern', tag: '' };
        await plants().insertIfAbsent(plant);
        await expect(plants().insertIfAbsent({ ...plant })).resolves.toStrictEqual({
          inserted: false,
          existing: plant,
        });
        await expect(plants().findById(plant.id)).resolves.toStrictEqual(plant);
      });

      it.each([
        ['another name', { name: 'Palm', tag: 'a' }],
        ['another tag', { name: 'Fern', tag: 'b' }],
        ['an empty tag', { name: 'Fern', tag: '' }],
        ['no tag', { name: 'Fern' }],
      ])(
        'when an id is inserted again with %s, then it reports the first content and keeps it',
        async (_, content) => {
          const first = { id: randomPlantId(), name: 'Fern', tag: 'a' };
          await plants().insertIfAbsent(first);
          await expect(plants().insertIfAbsent({ id: first.id, ...content })).resolves.toStrictEqual({
            inserted: false,
            existing: first,
          });
          await expect(plants().findById(first.id)).resolves.toStrictEqual(first);
        },
      );

      it('when a plant without tag is inserted again with a tag, then the stored plant keeps no tag', async () => {
        const first = { id: randomPlantId(), name: 'Fern' };
        await plants().insertIfAbsent(first);
        await expect(plants().insertIfAbsent({ ...first, tag: 'x' })).resolves.toStrictEqual({
          inserted: false,
          existing: first,
        });
        await expect(plants().findById(first.id)).resolves.toStrictEqual(first);
      });

      it('when 20 creates of one id race with 20 different names, then exactly one wins and all others report it', async () => {
        const id = randomPlantId();
        const attempts = Array.from({ length: 20 }, (_, i) => ({ id, name: `contender ${i}`, tag: `${i}` }));
        const outcomes = await Promise.all(attempts.map((plant) => plants().insertIfAbsent(plant)));
        expect(outcomes.filter((outcome) => outcome.inserted)).toHaveLength(1);
        const winner = winnerOf(outcomes, attempts);
        for (const outcome of outcomes) {
          if (!outcome.inserted) expect(outcome.existing).toStrictEqual(winner);
        }
        await expect(plants().findById(id)).resolves.toStrictEqual(winner);
      });

      it('when one plant object is inserted twice at once, then exactly one insert reports inserted, the other the plant', async () => {
        const plant = { id: randomPlantId(), name: 'Fern', tag: '' };
        const outcomes = await Promise.all([plants().insertIfAbsent(plant), plants().insertIfAbsent(plant)]);
        expect(outcomes).toContainEqual({ inserted: true });
        expect(outcomes).toContainEqual({ inserted: false, existing: plant });
      });

      it('when arbitrary valid NewPlants are inserted, then each round-trips exactly (property)', async () => {
        await checkRoundTrip(plants(), 100);
      });

      it('when createPlant and deletePlant run random sequences of creates, retries, conflicts, deletes and races, then they behave as a Map model (property)', async () => {
        await checkCreatePlantAgainstModel(plants(), 50);
      });

      it('when many plants of different ids are created at once, then all are inserted and found', async () => {
        const attempts = Array.from({ length: 50 }, (_, i) => ({ id: randomPlantId(), name: `plant ${i}` }));
        const outcomes = await Promise.all(attempts.map((plant) => plants().insertIfAbsent(plant)));
        expect(outcomes).toStrictEqual(attempts.map(() => ({ inserted: true })));
        const found = await Promise.all(attempts.map((plant) => plants().findById(plant.id)));
        expect(found).toStrictEqual(attempts);
      });

      // Created at once, a store that batches sends them together (as arrays, on PostgreSQL): text that
      // means something in an array literal must still come back as it was sent.
      it('when plants of every sample string, array syntax and the text NULL are created at once, then each round-trips exactly', async () => {
        const texts = [
          ...SAMPLE_STRINGS.map(([, text]) => text),
          '{braces},comma',
          '{"quoted", element}',
          'NULL',
          'null',
        ];
        const attempts = texts.map((text) => ({ id: randomPlantId(), name: text, tag: text }));
        const outcomes = await Promise.all(attempts.map((plant) => plants().insertIfAbsent(plant)));
        expect(outcomes).toStrictEqual(attempts.map(() => ({ inserted: true })));
        const found = await Promise.all(attempts.map((plant) => plants().findById(plant.id)));
        expect(found).toStrictEqual(attempts);
      });

      describe('a leading U+FEFF', () => {
        describeByteOrderMarkContract(plants);
      });

      describe('listing', () => {
        describeListingContract(plants);
      });

      describe("a page's byte budget", () => {
        describePageBytesContract(plants);
      });

      describe('deleting', () => {
        describeDeletingContract(plants);
      });

      describe('changing', () => {
        describeChangingContract(plants);
      });

      describe('listing by tag', () => {
        describeTagListingContract(plants);
      });
    });

    describe('without events', () => {
      describeNoEventsContract(() => harness.open());
    });

    describe('events (the outbox)', () => {
      describeEventsContract(() => harness.open({ events: true }), harness.durable);
    });

    describe('once closed', () => {
      let closed: PlantStorage | undefined;
      const storage = (): PlantStorage => {
        if (!closed) throw new Error('the store did not open');
        return closed;
      };

      beforeAll(async () => {
        const opened = await harness.open();
        await opened.checkReady();
        await opened.close();
        closed = opened;
      });

      it('when close is called again, then it resolves', async () => {
        await expect(storage().close()).resolves.toBeUndefined();
      });

      it('when it is used, then checkReady, insertIfAbsent and findById reject with StorageUnavailableError', async () => {
        await expect(storage().checkReady()).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(
          storage().plants.insertIfAbsent({ id: randomPlantId(), name: 'late' }),
        ).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(storage().plants.findById(randomPlantId())).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
      });

      it('when it is used, then listAfter and deleteById reject with StorageUnavailableError', async () => {
        await expect(storage().plants.listAfter(undefined, 1)).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
        await expect(storage().plants.listAfter(randomPlantId(), 100)).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
        await expect(storage().plants.deleteById(randomPlantId())).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
      });

      it('when it is used, then update, a conditional delete and a list by tag reject with StorageUnavailableError', async () => {
        await expect(storage().plants.update(randomPlantId(), { name: 'late' })).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
        await expect(
          storage().plants.update(randomPlantId(), { tag: null }, { name: 'late' }),
        ).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(storage().plants.deleteById(randomPlantId(), 'any')).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
        await expect(storage().plants.listAfter(undefined, 1, undefined, '')).rejects.toBeInstanceOf(
          StorageUnavailableError,
        );
      });
    });

    // Registered only for a durable store: a store that promises nothing here has nothing to skip.
    if (harness.durable) {
      describe('durability', () => {
        it('when the store is closed and reopened, then every plant is still there exactly', async () => {
          const plants: NewPlant[] = [
            { id: randomPlantId(), name: 'no tag' },
            { id: randomPlantId(), name: 'empty tag', tag: '' },
            { id: randomPlantId(), name: '  Cafe\u0301 🌵 ', tag: "'); drop table plants; --" },
            ...BOUNDARY_IDS.map((id) => ({ id, name: `durable ${id}`, tag: `${id}` })),
          ];
          const first = await harness.open();
          const stored = [];
          try {
            for (const plant of plants) stored.push(await storeOrKeep(first.plants, plant));
          } finally {
            await first.close();
          }

          const reopened = await harness.open();
          try {
            const found = await Promise.all(plants.map((plant) => reopened.plants.findById(plant.id)));
            expect(found).toStrictEqual(stored);
            expect(found.slice(0, 3)).toStrictEqual(plants.slice(0, 3));
          } finally {
            await reopened.close();
          }
        });

        it('when plants are changed, then after reopening each holds its last content and lists under its tag', async () => {
          const tag = `durable ${randomPlantId()}`;
          const renamed = { id: randomPlantId(), name: 'first', tag };
          const untagged = { id: randomPlantId(), name: 'tagged', tag };
          const first = await harness.open();
          try {
            await first.plants.insertIfAbsent(renamed);
            await first.plants.insertIfAbsent(untagged);
            await first.plants.update(renamed.id, { name: 'second' }, { name: 'first', tag });
            await first.plants.update(untagged.id, { tag: null });
          } finally {
            await first.close();
          }

          const reopened = await harness.open();
          try {
            await expect(reopened.plants.findById(renamed.id)).resolves.toStrictEqual({
              ...renamed,
              name: 'second',
            });
            await expect(reopened.plants.findById(untagged.id)).resolves.toStrictEqual({
              id: untagged.id,
              name: 'tagged',
            });
            await expect(reopened.plants.listAfter(undefined, 10, undefined, tag)).resolves.toStrictEqual({
              plants: [{ ...renamed, name: 'second' }],
              more: false,
            });
          } finally {
            await reopened.close();
          }
        });

        it('when a plant is deleted and another created under its id, then after reopening the first stays gone and the second is there', async () => {
          const deleted = { id: randomPlantId(), name: 'deleted' };
          const replaced = { id: randomPlantId(), name: 'first', tag: '' };
          const replacement = { id: replaced.id, name: 'second' };
          const first = await harness.open();
          try {
            await first.plants.insertIfAbsent(deleted);
            await first.plants.insertIfAbsent(replaced);
            expect(await first.plants.deleteById(deleted.id)).toBe(true);
            expect(await first.plants.deleteById(replaced.id)).toBe(true);
            expect(await first.plants.insertIfAbsent(replacement)).toStrictEqual({ inserted: true });
          } finally {
            await first.close();
          }

          const reopened = await harness.open();
          try {
            await expect(reopened.plants.findById(deleted.id)).resolves.toBeUndefined();
            await expect(reopened.plants.findById(replaced.id)).resolves.toStrictEqual(replacement);
            await expect(reopened.plants.listAfter(replaced.id - 1n, 1)).resolves.toMatchObject({
              plants: [replacement],
            });
          } finally {
            await reopened.close();
          }
        });
      });
    }
  });
}
