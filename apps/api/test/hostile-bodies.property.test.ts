// Property-based: whatever a client sends as the body of POST /plants, the answer is never a 5xx,
// and a plant is stored exactly when the body is a valid NewPlant. The store is read after each run.
import { INT64_MAX, INT64_MIN, type NewPlant, type PlantStorage } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import {
  fractionSourceArbitrary,
  int64SourceArbitrary,
} from '@plant-store/test-support/json-number-arbitraries';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRequest, type RawResponse } from './support/raw-http.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

/** Text the domain accepts (as in the storage contract's properties): any code point but NUL. */
const plantTextArbitrary = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ unit: 'grapheme', maxLength: 32 }))
  .filter((text) => !text.includes('\0'));

/** Memory storage that records every plant it stores, so a run can see exactly what it stored. */
function recordingStorage(): { storage: PlantStorage; takeStored(): NewPlant[] } {
  const inner = openMemoryPlantStorage();
  const stored: NewPlant[] = [];
  return {
    takeStored: () => stored.splice(0),
    storage: {
      ...inner,
      plants: {
        insertIfAbsent: async (plant) => {
          const outcome = await inner.plants.insertIfAbsent(plant);
          if (outcome.inserted) stored.push(plant);
          return outcome;
        },
        findById: (id) => inner.plants.findById(id),
        listAfter: (after, limit, maxBytes, tag) => inner.plants.listAfter(after, limit, maxBytes, tag),
        update: (id, change, expected) => inner.plants.update(id, change, expected),
        deleteById: (id, expected) => inner.plants.deleteById(id, expected),
      },
    },
  };
}

const recording = recordingStorage();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(recording.storage, { LOG_LEVEL: 'silent' });
});
afterAll(async () => {
  await server?.stop();
});

function postResponse(body: Uint8Array | string): Promise<RawResponse> {
  return nodeRequest(server.port, {
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    chunks: [body],
  });
}

async function post(body: Uint8Array | string): Promise<number> {
  return (await postResponse(body)).status;
}

describe('hostile bodies on POST /plants (properties)', () => {
  it('when the body is arbitrary bytes, then the answer is never a 5xx and nothing is stored unless it answered 200', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const status = await post(bytes);
        const stored = recording.takeStored();
        expect(status).toBeLessThan(500);
        expect([200, 400]).toContain(status);
        if (status !== 200) expect(stored).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('when the body is arbitrary JSON, then the answer is never a 5xx and nothing is stored unless it answered 200', async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 4, stringUnit: 'binary' }), async (json) => {
        const status = await post(json);
        const stored = recording.takeStored();
        expect([200, 400, 409]).toContain(status);
        if (status !== 200) expect(stored).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('when the body is a near-valid NewPlant, then it is stored exactly when valid, and refused with a 400 otherwise', async () => {
    // Each field is either valid (with its exact value) or invalid; the JSON text is written by
    // hand so that ids can be any int64, in any JSON spelling of an integer.
    type Field = { readonly json: string | undefined; readonly valid: boolean; readonly value?: unknown };
    const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
    const idField: fc.Arbitrary<Field> = fc.oneof(
      int64.map((n) => ({ json: String(n), valid: true, value: n })),
      int64.map((n) => ({ json: `${n}.0`, valid: true, value: n })),
      int64.map((n) => ({ json: `${n}e0`, valid: true, value: n })),
      int64.map((n) => ({ json: `${n}.5`, valid: false })),
      fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 70n }).map((n) => ({ json: String(n), valid: false })),
      fc.bigInt({ min: -(2n ** 70n), max: INT64_MIN - 1n }).map((n) => ({ json: String(n), valid: false })),
      int64.map((n) => ({ json: JSON.stringify(String(n)), valid: false })),
      fc
        .constantFrom('null', 'true', '[]', '{}', '1e400', '-0.0000001')
        .map((json) => ({ json, valid: false })),
      fc.constant({ json: undefined, valid: false }),
    );
    const textField = (optional: boolean): fc.Arbitrary<Field> =>
      fc.oneof(
        plantTextArbitrary.map((text) => ({ json: JSON.stringify(text), valid: true, value: text })),
        plantTextArbitrary.map((text) => ({ json: JSON.stringify(`${text}\0`), valid: false })),
        fc
          .constantFrom('\ud800', 'a\udfff', '\udc00\ud800')
          .map((text) => ({ json: JSON.stringify(text), valid: false })),
        fc.constantFrom('null', '0', 'false', '[]', '{"a":1}').map((json) => ({ json, valid: false })),
        fc.constant({ json: undefined, valid: optional }),
      );
    const bodyArbitrary = fc.record({
      id: idField,
      name: textField(false),
      tag: textField(true),
      extra: fc.option(fc.json({ maxDepth: 2 }), { nil: undefined }),
    });

    const seen = new Map<bigint, { name: unknown; tag: unknown }>();
    await fc.assert(
      fc.asyncProperty(bodyArbitrary, async ({ id, name, tag, extra }) => {
        const members = [
          ['id', id.json],
          ['name', name.json],
          ['tag', tag.json],
          ['extra', extra],
        ].flatMap(([key, json]) => (json === undefined ? [] : [`${JSON.stringify(key)}:${json}`]));
        const status = await post(`{${members.join(',')}}`);
        const stored = recording.takeStored();

        const valid = id.valid && name.valid && tag.valid;
        if (!valid) {
          expect(status).toBe(400);
          expect(stored).toEqual([]);
          return;
        }
        const plantId = id.value as bigint;
        const content = { name: name.value, tag: tag.json === undefined ? undefined : tag.value };
        const before = seen.get(plantId);
        if (before === undefined) {
          expect(status).toBe(200);
          const expected =
            content.tag === undefined ? { id: plantId, name: content.name } : { id: plantId, ...content };
          expect(stored).toStrictEqual([expected]);
          seen.set(plantId, content);
        } else {
          // fast-check likes the edges (0, ±2^63): a valid id seen before is a retry or a conflict.
          expect(status).toBe(before.name === content.name && before.tag === content.tag ? 200 : 409);
          expect(stored).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('when the id has a non-zero fractional part, in any spelling and of any size, then it is refused as a fraction and nothing is stored', async () => {
    await fc.assert(
      fc.asyncProperty(fractionSourceArbitrary, async (source) => {
        const response = await postResponse(`{"id":${source},"name":"fraction"}`);
        expect(recording.takeStored()).toEqual([]);
        expect(response.status).toBe(400);
        expect(response.json()).toEqual({
          error: 400,
          message: 'invalid plant: id must be an integer, without a fractional part',
        });
      }),
      { numRuns: 300 },
    );
  });

  it('when the id is a whole int64 in any spelling, then exactly that id is stored', async () => {
    await fc.assert(
      fc.asyncProperty(int64SourceArbitrary, async ({ source, value }) => {
        const name = `spelling ${source}`;
        // fast-check picks some ids more than once (0, ±2^63), here or in the tests above.
        const before = await recording.storage.plants.findById(value);
        const status = await post(`{"id":${source},"name":${JSON.stringify(name)}}`);
        const stored = recording.takeStored();
        if (before === undefined) {
          expect(status).toBe(200);
          expect(stored).toEqual([{ id: value, name }]);
        } else {
          expect(status).toBe(before.name === name && before.tag === undefined ? 200 : 409);
          expect(stored).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
