import type { PlantStorage } from '@plant-store/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from './support/expect-error.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

/**
 * The HTTP behaviour of the plants API, /healthz and /readyz that must hold whatever the storage:
 * each adapter's test file calls this once with a way to open a fresh, empty storage.
 */
export function describePlantsApi(adapter: string, openStorage: () => Promise<PlantStorage>): void {
  describe(`the plants API on ${adapter}`, () => {
    let server: TestServer;
    // Every test works on ids of its own, so that they share one storage without meeting.
    let nextId = 1_000n;
    const freshId = (): bigint => nextId++;

    beforeAll(async () => {
      server = await startTestServer(await openStorage());
    });
    afterAll(async () => {
      await server?.stop();
    });

    const stored = (id: bigint) => server.storage.plants.findById(id);

    describe('creating a plant', () => {
      it('when a valid plant is sent with a valid token, then it answers 200 with the plant without its id, and stores it', async () => {
        const id = freshId();
        const response = await server.createPlant({ id: Number(id), name: 'Monstera', tag: 'aroid' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
        expect(await stored(id)).toEqual({ id, name: 'Monstera', tag: 'aroid' });
      });

      it('when the tag is absent, then the answer has no tag and none is stored', async () => {
        const id = freshId();
        const response = await server.createPlant({ id: Number(id), name: 'Fern' });
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('{"name":"Fern"}');
        const plant = await stored(id);
        expect(plant).toEqual({ id, name: 'Fern' });
        expect(plant).not.toHaveProperty('tag');
      });

      it('when the tag is the empty string, then it is kept as an empty tag, not dropped', async () => {
        const id = freshId();
        const response = await server.createPlant({ id: Number(id), name: 'Fern', tag: '' });
        expect(await response.json()).toEqual({ name: 'Fern', tag: '' });
        expect(await stored(id)).toEqual({ id, name: 'Fern', tag: '' });
      });

      it('when unknown fields are sent, then they are ignored and not stored', async () => {
        const id = freshId();
        const response = await server.createPlant({ id: Number(id), name: 'Ivy', colour: 'green', id2: 5 });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ name: 'Ivy' });
        expect(await stored(id)).toEqual({ id, name: 'Ivy' });
      });

      it('when names and tags hold any Unicode, spaces or an empty name, then they are stored and answered exactly', async () => {
        const cases = [
          { name: '  Cafe\u0301 🌵 ', tag: 'e\u0301 vs \u00e9' },
          { name: '', tag: '\t\n' },
          { name: '日本語の植物', tag: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢' },
          { name: 'quote " backslash \\ \u2028', tag: 'x'.repeat(5000) },
        ];
        for (const plant of cases) {
          const id = freshId();
          const response = await server.createPlant({ id: Number(id), ...plant });
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual(plant);
          expect(await stored(id)).toEqual({ id, ...plant });
        }
      });
    });

    describe('integer ids', () => {
      it.each([
        ['2^63-1', '9223372036854775807', 9223372036854775807n],
        ['-2^63', '-9223372036854775808', -9223372036854775808n],
        ['2^53+1', '9007199254740993', 9007199254740993n],
        ['-(2^53+1)', '-9007199254740993', -9007199254740993n],
        ['0', '0', 0n],
      ])(
        'when the id is %s, then it is stored exactly and read back as that bigint',
        async (_label, digits, id) => {
          const response = await server.createPlant(`{"id":${digits},"name":"boundary ${digits}"}`);
          expect(response.status).toBe(200);
          expect(await stored(id)).toEqual({ id, name: `boundary ${digits}` });
          // The neighbour that a double would have rounded the id to stays free.
          if (id > 2n ** 53n) expect(await stored(id - 1n)).toBeUndefined();
        },
      );

      it('when the id is written 7.0 or 7e0, then both are the integer 7: the second is a retry of the first', async () => {
        const first = await server.createPlant('{"id":7.0,"name":"seven"}');
        expect(first.status).toBe(200);
        const second = await server.createPlant('{"id":7e0,"name":"seven"}');
        expect(second.status).toBe(200);
        expect(await stored(7n)).toEqual({ id: 7n, name: 'seven' });
      });
    });

    describe('invalid plants', () => {
      it.each([
        ['the id is missing', '{"name":"a"}', /id is required/],
        ['the name is missing', '{"id":11}', /name is required/],
        ['the id is a string', '{"id":"12","name":"a"}', /id must be an integer, not a string/],
        [
          'the id has a fraction',
          '{"id":12.5,"name":"a"}',
          /id must be an integer, without a fractional part/,
        ],
        ['the id hides a tiny fraction', '{"id":1.0000000000000000001,"name":"a"}', /id .*fractional/],
        ['the id is 2^63', '{"id":9223372036854775808,"name":"a"}', /id must be an integer between/],
        ['the id is -2^63-1', '{"id":-9223372036854775809,"name":"a"}', /id must be an integer between/],
        ['the id is 1e400', '{"id":1e400,"name":"a"}', /id must be an integer between/],
        ['the id is null', '{"id":null,"name":"a"}', /id must be an integer, not null/],
        ['the id is true', '{"id":true,"name":"a"}', /id must be an integer, not a boolean/],
        ['the name is null', '{"id":13,"name":null}', /name must be a string, not null/],
        ['the name is a number', '{"id":13,"name":42}', /name must be a string, not a number/],
        ['the tag is null', '{"id":13,"name":"a","tag":null}', /tag must be a string, not null/],
        ['the tag is an object', '{"id":13,"name":"a","tag":{}}', /tag must be a string, not an object/],
        ['the name holds NUL', '{"id":13,"name":"a\\u0000b"}', /name must not contain the NUL character/],
        [
          'the tag holds a lone surrogate',
          '{"id":13,"name":"a","tag":"\\ud800"}',
          /tag must be well-formed Unicode/,
        ],
        ['the body is an array', '[{"id":13,"name":"a"}]', /must be a JSON object, not an array/],
        ['the body is a number', '42', /must be a JSON object, not a number/],
        ['the body is a string', '"plant"', /must be a JSON object, not a string/],
        ['the body is null', 'null', /must be a JSON object, not null/],
      ])(
        'when %s, then it answers 400 naming the problem and stores nothing',
        async (_label, body, message) => {
          const response = await server.createPlant(body);
          expect(await expectErrorResponse(response, 400)).toMatch(message);
          expect(await stored(11n)).toBeUndefined();
          expect(await stored(12n)).toBeUndefined();
          expect(await stored(13n)).toBeUndefined();
        },
      );

      it('when several fields are wrong, then the message names each of them', async () => {
        const message = await expectErrorResponse(
          await server.createPlant('{"id":"x","name":1,"tag":null}'),
          400,
        );
        expect(message).toMatch(/id must be/);
        expect(message).toMatch(/name must be/);
        expect(message).toMatch(/tag must be/);
      });
    });

    describe('retries and duplicates', () => {
      it('when the same id is sent again with the same content, then it answers 200 and stores nothing new', async () => {
        const id = freshId();
        const plant = { id: Number(id), name: 'Pothos', tag: 'vine' };
        expect((await server.createPlant(plant)).status).toBe(200);
        const retry = await server.createPlant(plant);
        expect(retry.status).toBe(200);
        expect(await retry.json()).toEqual({ name: 'Pothos', tag: 'vine' });
        expect(await stored(id)).toEqual({ id, name: 'Pothos', tag: 'vine' });
      });

      it.each([
        ['another name', { name: 'Other' }],
        ['another tag', { name: 'Pothos', tag: 'other' }],
        ['no tag where one was stored', { name: 'Pothos' }],
        ['an empty tag where one was stored', { name: 'Pothos', tag: '' }],
      ])(
        'when the same id is sent again with %s, then it answers 409 and the stored plant is unchanged',
        async (_label, content) => {
          const id = freshId();
          expect((await server.createPlant({ id: Number(id), name: 'Pothos', tag: 'vine' })).status).toBe(
            200,
          );
          const conflict = await server.createPlant({ id: Number(id), ...content });
          expect(await expectErrorResponse(conflict, 409)).toMatch(new RegExp(`id ${id} already exists`));
          expect(await stored(id)).toEqual({ id, name: 'Pothos', tag: 'vine' });
        },
      );

      it('when a name and tag begin with U+FEFF, then they are answered, read and listed with it; the same body again is a retry, the text without it a conflict', async () => {
        // A JSON escape in the name, the raw UTF-8 bytes (EF BB BF) in the tag: both are content.
        const id = freshId();
        const body = `{"id":${id},"name":"\\ufeffMonstera","tag":"\ufeffaroid"}`;
        const plant = { name: '\ufeffMonstera', tag: '\ufeffaroid' };
        const created = await server.createPlant(body);
        expect(created.status).toBe(200);
        expect(await created.json()).toStrictEqual(plant);
        const read = await fetch(`${server.url}/plants/${id}`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
        });
        expect(await read.json()).toStrictEqual(plant);
        const listed = await fetch(`${server.url}/plants?limit=1&after=${id - 1n}`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
        });
        expect(await listed.json()).toStrictEqual([{ id: Number(id), ...plant }]);
        const retry = await server.createPlant(body);
        expect(retry.status).toBe(200);
        expect(await retry.json()).toStrictEqual(plant);
        await expectErrorResponse(
          await server.createPlant({ id: Number(id), name: 'Monstera', tag: 'aroid' }),
          409,
        );
        await expectErrorResponse(await server.createPlant({ id: Number(id), ...plant, tag: 'aroid' }), 409);
        expect(await stored(id)).toStrictEqual({ id, ...plant });
      });

      it('when an absent tag was stored and an empty one is sent, then it answers 409', async () => {
        const id = freshId();
        expect((await server.createPlant({ id: Number(id), name: 'Aloe' })).status).toBe(200);
        await expectErrorResponse(await server.createPlant({ id: Number(id), name: 'Aloe', tag: '' }), 409);
        expect(await stored(id)).toEqual({ id, name: 'Aloe' });
      });

      it('when 20 requests create one id at once, then exactly one content is stored and every answer agrees with it', async () => {
        const id = freshId();
        const contents = Array.from({ length: 20 }, (_, i) => ({ name: `variant ${i % 4}`, tag: 'race' }));
        const responses = await Promise.all(
          contents.map((content) => server.createPlant({ id: Number(id), ...content })),
        );
        const winner = await stored(id);
        expect(winner).toBeDefined();
        for (const [i, response] of responses.entries()) {
          if (contents[i]?.name === winner?.name) {
            expect(response.status).toBe(200);
            expect(await response.json()).toEqual({ name: winner?.name, tag: 'race' });
          } else {
            await expectErrorResponse(response, 409);
          }
        }
        expect(responses.filter((r) => r.status === 200).length).toBe(5);
      });
    });

    describe('credentials', () => {
      it('when no token is sent, then it answers 401 with WWW-Authenticate and stores nothing', async () => {
        const id = freshId();
        const response = await server.createPlant({ id: Number(id), name: 'a' }, { Authorization: '' });
        await expectErrorResponse(response, 401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
        expect(await stored(id)).toBeUndefined();
      });

      it('when a wrong token is sent, then it answers 401 with error="invalid_token" and stores nothing', async () => {
        const id = freshId();
        const response = await server.createPlant(
          { id: Number(id), name: 'a' },
          { Authorization: 'Bearer wrong-token' },
        );
        await expectErrorResponse(response, 401);
        expect(response.headers.get('www-authenticate')).toBe(
          'Bearer realm="plant-store", error="invalid_token"',
        );
        expect(await stored(id)).toBeUndefined();
      });
    });

    describe('reading, listing and deleting plants', () => {
      const auth = { Authorization: `Bearer ${TOKEN}` };
      const get = (path: string, init: RequestInit = {}) =>
        fetch(`${server.url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
      // A band of ids of these tests' own, from just above 2^62, ids a double cannot hold; the other
      // tests' ids are small, so a list that starts at the band's start sees only the band.
      const BAND = 2n ** 62n;
      const create = async (id: bigint, name: string, tag?: string) => {
        const body = `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
        expect((await server.createPlant(body)).status).toBe(200);
      };

      it('when a stored plant is read by its id, then it answers 200 with the plant without its id; HEAD gives the headers only', async () => {
        await create(BAND + 1n, 'Monstera', 'aroid');
        const response = await get(`/plants/${BAND + 1n}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
        const head = await get(`/plants/${BAND + 1n}`, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.headers.get('content-length')).toBe(response.headers.get('content-length'));
        expect(await head.text()).toBe('');
      });

      it('when nothing is stored under the id, then it answers 404; when the id is not plain decimal int64, 400 naming it', async () => {
        await expectErrorResponse(await get(`/plants/${BAND + 999n}`), 404);
        for (const id of ['abc', '007', '+7', '7.0', '1e3', '9223372036854775808', '-9223372036854775809']) {
          const response = await get(`/plants/${encodeURIComponent(id)}`);
          expect(await expectErrorResponse(response, 400)).toMatch(/^invalid parameter: id /);
        }
      });

      it('when a list is walked by its Link headers, then every plant of the band comes once, ascending, with exact ids', async () => {
        const ids = Array.from({ length: 7 }, (_, index) => BAND + 100n + BigInt(index) * 3n);
        for (const id of [...ids].reverse()) await create(id, `plant ${id}`);
        const seen: string[] = [];
        let next: string | undefined = `/plants?limit=3&after=${BAND + 99n}`;
        let pages = 0;
        while (next !== undefined && pages < 10) {
          const response = await get(next);
          expect(response.status).toBe(200);
          const text = await response.text();
          // The ids are read from the text: a double would round them.
          seen.push(...[...text.matchAll(/"id":(-?\d+)/g)].map((match) => match[1] as string));
          const link = response.headers.get('link');
          next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
          pages += 1;
          if (seen.length >= ids.length) break;
        }
        expect(seen.slice(0, ids.length)).toEqual(ids.map(String));
      });

      it('when the limit or after is bad, then it answers 400 naming it; unknown parameters are ignored', async () => {
        expect(await expectErrorResponse(await get('/plants?limit=0'), 400)).toMatch(/limit/);
        expect(await expectErrorResponse(await get('/plants?limit=1001'), 400)).toMatch(/limit/);
        expect(await expectErrorResponse(await get('/plants?after=1.5'), 400)).toMatch(/after/);
        expect(await expectErrorResponse(await get('/plants?limit=1&limit=2'), 400)).toMatch(
          /limit must be given once/,
        );
        const response = await get(`/plants?limit=1&after=${BAND}&colour=green`);
        expect(response.status).toBe(200);
      });

      it('when a plant is deleted, then 204, it is gone, a second delete is 404, and the id takes any content again', async () => {
        const id = BAND + 500n;
        await create(id, 'Old', 'first');
        const deleted = await get(`/plants/${id}`, { method: 'DELETE' });
        expect(deleted.status).toBe(204);
        expect(await deleted.text()).toBe('');
        expect(await stored(id)).toBeUndefined();
        await expectErrorResponse(await get(`/plants/${id}`, { method: 'DELETE' }), 404);
        await create(id, 'New');
        expect(await (await get(`/plants/${id}`)).json()).toEqual({ name: 'New' });
      });

      it('when there is no or a wrong token, then reading, listing and deleting answer 401 and change nothing', async () => {
        const id = BAND + 600n;
        await create(id, 'Kept');
        for (const [method, path] of [
          ['GET', `/plants/${id}`],
          ['GET', '/plants'],
          ['DELETE', `/plants/${id}`],
        ] as const) {
          await expectErrorResponse(await fetch(`${server.url}${path}`, { method }), 401);
          await expectErrorResponse(
            await fetch(`${server.url}${path}`, { method, headers: { Authorization: 'Bearer wrong-token' } }),
            401,
          );
        }
        expect(await stored(id)).toEqual({ id, name: 'Kept' });
      });
    });

    describe('pages of long plants', () => {
      const MIB = 1024 * 1024;
      const auth = { Authorization: `Bearer ${TOKEN}` };

      /** Walks a band of ids by Link from `first`: each page's body size, and the ids that came, read from the text. */
      async function walk(first: string, band: readonly [bigint, bigint]) {
        const pages: { bytes: number; ids: bigint[]; link: string | null }[] = [];
        let next: string | undefined = first;
        while (next !== undefined) {
          const response = await fetch(`${server.url}${next}`, { headers: auth });
          expect(response.status).toBe(200);
          const body = Buffer.from(await response.arrayBuffer());
          expect(Number(response.headers.get('content-length'))).toBe(body.length);
          const ids = [...body.toString('utf8').matchAll(/"id":(-?\d+)/g)].map((match) =>
            BigInt(match[1] as string),
          );
          const link = response.headers.get('link');
          pages.push({ bytes: body.length, ids, link });
          const inBand = ids.every((id) => id >= band[0] && id < band[1]);
          next = link === null || !inBand ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
        }
        return pages;
      }

      it('when plants are long, then a page stops before 1 MiB of body with a Link after its last plant, and a walk by Link sees every plant once', async () => {
        const start = 2n ** 62n + 2n ** 50n;
        const ids = Array.from({ length: 40 }, (_, index) => start + BigInt(index));
        for (const id of ids) {
          const name = `${id} ${'Monstera deliciosa '.repeat(3_200)}`;
          expect((await server.createPlant(`{"id":${id},"name":"${name}","tag":"aroid"}`)).status).toBe(200);
        }
        const pages = await walk(`/plants?limit=1000&after=${start - 1n}`, [start, start + 40n]);
        const seen = pages.flatMap((page) => page.ids).filter((id) => id < start + 40n);
        expect(seen).toEqual(ids);
        expect(pages.length).toBeGreaterThan(2);
        for (const page of pages.slice(0, -1)) {
          expect(page.bytes).toBeLessThanOrEqual(MIB);
          // Nearly full: the next plant (~60 KB) would have passed 1 MiB.
          expect(page.bytes).toBeGreaterThan(MIB - 70_000);
          expect(page.link).toBe(`</plants?limit=1000&after=${page.ids.at(-1)}>; rel="next"`);
        }
      });

      it('when names grow under JSON escaping, then the body still stops before 1 MiB, and the next page starts after its last plant', async () => {
        // 10,000 control characters: 10 KB stored, 60 KB written as JSON (\u0001 each).
        const start = 2n ** 62n + 2n ** 51n;
        const ids = Array.from({ length: 30 }, (_, index) => start + BigInt(index));
        const escaped = '\\u0001'.repeat(10_000);
        for (const id of ids) {
          expect((await server.createPlant(`{"id":${id},"name":"${escaped}"}`)).status).toBe(200);
        }
        const pages = await walk(`/plants?limit=50&after=${start - 1n}`, [start, start + 30n]);
        expect(pages.flatMap((page) => page.ids).filter((id) => id < start + 30n)).toEqual(ids);
        const [first] = pages;
        expect(first?.bytes).toBeLessThanOrEqual(MIB);
        expect(first?.ids.length).toBeLessThan(30);
        expect(first?.link).toBe(`</plants?limit=50&after=${first?.ids.at(-1)}>; rel="next"`);
      });

      it('when one plant alone is larger than 1 MiB, then a page answers it alone, whole, with a Link after it', async () => {
        // Larger than any request body: stored through the storage itself.
        const start = 2n ** 62n + 2n ** 52n;
        const huge = { id: start, name: 'Monstera '.repeat(150_000), tag: 'aroid' };
        await server.storage.plants.insertIfAbsent(huge);
        await server.storage.plants.insertIfAbsent({ id: start + 1n, name: 'Fern' });
        const response = await fetch(`${server.url}/plants?limit=10&after=${start - 1n}`, { headers: auth });
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(Buffer.byteLength(text)).toBeGreaterThan(MIB);
        expect(JSON.parse(text)).toEqual([{ id: Number(start), name: huge.name, tag: 'aroid' }]);
        expect(response.headers.get('link')).toBe(`</plants?limit=10&after=${start}>; rel="next"`);
        const next = await fetch(`${server.url}/plants?limit=10&after=${start}`, { headers: auth });
        expect(((await next.json()) as unknown[])[0]).toEqual({ id: Number(start + 1n), name: 'Fern' });
      });
    });

    describe('health and readiness', () => {
      it('when /healthz is asked without a token, then it answers 200 ok', async () => {
        const response = await fetch(`${server.url}/healthz`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: 'ok' });
      });

      it('when /readyz is asked without a token and storage answers, then it answers 200 ready', async () => {
        const response = await fetch(`${server.url}/readyz`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: 'ready' });
      });
    });
  });
}
