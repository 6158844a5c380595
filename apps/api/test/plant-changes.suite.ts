import type { NewPlant, PlantStorage } from '@plant-store/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantETag } from '../src/operations/plant-etag.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { parseRawResponse, rawExchange } from './support/raw-http.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

/**
 * Changing plants (PUT, PATCH), their ETags, conditional requests and listing by tag, as DESIGN.md's
 * fourth round says, whatever the storage: each adapter's test file calls this with a fresh storage.
 */
export function describePlantChanges(adapter: string, openStorage: () => Promise<PlantStorage>): void {
  describe(`changing plants, ETags and conditional requests on ${adapter}`, () => {
    let server: TestServer;
    // Ids of these tests' own, far from the other suites', which may share the storage's ids.
    let nextId = 3n * 10n ** 15n;
    const freshId = (): bigint => nextId++;

    beforeAll(async () => {
      server = await startTestServer(await openStorage());
    });
    afterAll(async () => {
      await server?.stop();
    });

    const auth = { Authorization: `Bearer ${TOKEN}` };
    const stored = (id: bigint) => server.storage.plants.findById(id);
    const request = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { ...auth, ...headers },
        ...(body === undefined ? {} : { body }),
      });
    const text = (body: string | object) => (typeof body === 'string' ? body : JSON.stringify(body));
    const put = (id: bigint | string, body: string | object, headers: Record<string, string> = {}) =>
      request('PUT', `/plants/${id}`, { 'Content-Type': 'application/json', ...headers }, text(body));
    const patch = (id: bigint | string, body: string | object, headers: Record<string, string> = {}) =>
      request(
        'PATCH',
        `/plants/${id}`,
        { 'Content-Type': 'application/merge-patch+json', ...headers },
        text(body),
      );
    const get = (path: string, headers: Record<string, string> = {}) => request('GET', path, headers);
    /** Creates a plant and answers the ETag of its 200. */
    const create = async (plant: NewPlant): Promise<string> => {
      const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
      const response = await server.createPlant(
        `{"id":${plant.id},"name":${JSON.stringify(plant.name)}${tag}}`,
      );
      expect(response.status).toBe(200);
      return response.headers.get('etag') as string;
    };

    describe('PUT /plants/{id}', () => {
      it('when a stored plant is replaced, then it answers 200 with the plant as stored and its ETag, and stores it', async () => {
        const id = freshId();
        await create({ id, name: 'Monstera', tag: 'aroid' });
        const response = await put(id, { name: 'Monstera deliciosa', tag: 'Araceae' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual({ name: 'Monstera deliciosa', tag: 'Araceae' });
        expect(response.headers.get('etag')).toBe(plantETag({ name: 'Monstera deliciosa', tag: 'Araceae' }));
        expect(await stored(id)).toEqual({ id, name: 'Monstera deliciosa', tag: 'Araceae' });
      });

      it('when the body has no tag, then the stored tag is removed; an empty tag is kept as a tag', async () => {
        const id = freshId();
        await create({ id, name: 'Fern', tag: 'fern' });
        const untagged = await put(id, { name: 'Fern' });
        expect(await untagged.text()).toBe('{"name":"Fern"}');
        expect(await stored(id)).toStrictEqual({ id, name: 'Fern' });
        const empty = await put(id, { name: 'Fern', tag: '' });
        expect(await empty.json()).toEqual({ name: 'Fern', tag: '' });
        expect(await stored(id)).toEqual({ id, name: 'Fern', tag: '' });
        expect(empty.headers.get('etag')).not.toBe(untagged.headers.get('etag'));
      });

      it('when the same PUT comes again, then it answers 200 with the same ETag, and nothing changes', async () => {
        const id = freshId();
        await create({ id, name: 'Aloe' });
        const first = await put(id, { name: 'Aloe vera', tag: 'succulent' });
        const again = await put(id, { name: 'Aloe vera', tag: 'succulent' });
        expect([first.status, again.status]).toEqual([200, 200]);
        expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
        expect(await again.json()).toEqual({ name: 'Aloe vera', tag: 'succulent' });
        expect(await stored(id)).toEqual({ id, name: 'Aloe vera', tag: 'succulent' });
      });

      it("when the body has the path's id, or unknown members, then it is taken; the id stays and the unknown members are not stored", async () => {
        const id = freshId();
        await create({ id, name: 'Ivy' });
        const response = await put(
          id,
          `{"id":${id},"name":"Ivy","tag":"vine","colour":"green","deep":[[[]]]}`,
        );
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ name: 'Ivy', tag: 'vine' });
        expect(await stored(id)).toEqual({ id, name: 'Ivy', tag: 'vine' });
      });

      it.each([
        [
          'another id',
          (id: bigint) => `{"id":${id + 1n},"name":"x"}`,
          /^invalid plant: id must be the id of the plant it changes, \d+, or left out$/,
        ],
        [
          'an id of 60 KB of digits',
          () => `{"id":${'9'.repeat(60_000)},"name":"x"}`,
          /^invalid plant: id must be an integer between/,
        ],
        [
          'an id written as text',
          (id: bigint) => `{"id":"${id}","name":"x"}`,
          /^invalid plant: id must be an integer, not a string/,
        ],
        ['no name', () => '{"tag":"x"}', /^invalid plant: name is required$/],
        ['a null tag', () => '{"name":"x","tag":null}', /^invalid plant: tag must be a string, not null$/],
        ['a name with NUL', () => '{"name":"a\\u0000b"}', /NUL/],
        ['an array', () => '[{"name":"x"}]', /must be a JSON object, not an array/],
        ['no JSON', () => '{"name":', /^the request body is not valid JSON/],
        ['no body', () => '', /^request body is required$/],
      ])(
        'when the body has %s, then it answers 400 naming it, and the plant is unchanged',
        async (_label, body, message) => {
          const id = freshId();
          await create({ id, name: 'Kept', tag: 'kept' });
          expect(await expectErrorResponse(await put(id, body(id)), 400)).toMatch(message);
          expect(await stored(id)).toEqual({ id, name: 'Kept', tag: 'kept' });
        },
      );

      it('when a create is retried after a change, then it is compared with the content stored now: equal 200, else 409', async () => {
        const id = freshId();
        await create({ id, name: 'First' });
        expect((await put(id, { name: 'Second', tag: 's' })).status).toBe(200);
        await expectErrorResponse(await server.createPlant(`{"id":${id},"name":"First"}`), 409);
        const retry = await server.createPlant(`{"id":${id},"name":"Second","tag":"s"}`);
        expect(retry.status).toBe(200);
        expect(await retry.json()).toEqual({ name: 'Second', tag: 's' });
        expect(await stored(id)).toEqual({ id, name: 'Second', tag: 's' });
      });

      it('when no plant is stored under the id, then it answers 404 and creates none: PUT never creates', async () => {
        const id = freshId();
        expect(await expectErrorResponse(await put(id, { name: 'New' }), 404)).toBe(
          `there is no plant with id ${id}`,
        );
        expect(await stored(id)).toBeUndefined();
      });

      it('when the body is not application/json, too large, or encoded, then 415, 413, 415 as on POST, and nothing changes', async () => {
        const id = freshId();
        await create({ id, name: 'Kept' });
        await expectErrorResponse(await put(id, { name: 'x' }, { 'Content-Type': 'text/plain' }), 415);
        await expectErrorResponse(
          await put(id, { name: 'x' }, { 'Content-Type': 'application/merge-patch+json' }),
          415,
        );
        await expectErrorResponse(await put(id, { name: 'x'.repeat(70_000) }), 413);
        await expectErrorResponse(await put(id, { name: 'x' }, { 'Content-Encoding': 'gzip' }), 415);
        expect(await stored(id)).toEqual({ id, name: 'Kept' });
      });
    });

    describe('PATCH /plants/{id} (JSON merge patch)', () => {
      it.each([
        ['a name', { name: 'New' }, { name: 'New', tag: 'old' }],
        ['a tag', { tag: 'new' }, { name: 'Old', tag: 'new' }],
        ['an empty tag', { tag: '' }, { name: 'Old', tag: '' }],
        ['a null tag', { tag: null }, { name: 'Old' }],
        ['both', { name: 'New', tag: null }, { name: 'New' }],
        ['nothing', {}, { name: 'Old', tag: 'old' }],
        ['unknown members only', { colour: 'green', name2: 'x' }, { name: 'Old', tag: 'old' }],
      ])(
        'when the patch changes %s, then those members change, the others stay, and it answers the plant with its ETag',
        async (_label, body, after) => {
          const id = freshId();
          await create({ id, name: 'Old', tag: 'old' });
          const response = await patch(id, body);
          expect(response.status).toBe(200);
          expect(await response.json()).toStrictEqual(after);
          expect(response.headers.get('etag')).toBe(plantETag(after));
          expect(await stored(id)).toStrictEqual({ id, ...after });
        },
      );

      it("when the patch has the path's id, then it is taken; another id, a null or non-string name, a tag neither string nor null: 400, nothing changed", async () => {
        const id = freshId();
        await create({ id, name: 'Old', tag: 'old' });
        expect((await patch(id, `{"id":${id},"tag":"new"}`)).status).toBe(200);
        for (const [body, message] of [
          [`{"id":${id + 1n},"tag":"x"}`, /^invalid plant: id must be the id of the plant it changes/],
          [`{"id":1${'0'.repeat(60_000)},"tag":"x"}`, /^invalid plant: id must be an integer between/],
          ['{"name":null}', /^invalid plant: name must be a string, not null$/],
          ['{"name":7}', /^invalid plant: name must be a string, not a number$/],
          ['{"tag":7}', /^invalid plant: tag must be a string, or null to remove it, not a number$/],
          ['{"tag":{"a":1}}', /^invalid plant: tag must be a string, or null to remove it, not an object$/],
          ['["x"]', /^invalid plant: must be a JSON object, not an array$/],
          ['null', /^invalid plant: must be a JSON object, not null$/],
        ] as const) {
          expect(await expectErrorResponse(await patch(id, body), 400)).toMatch(message);
        }
        expect(await stored(id)).toEqual({ id, name: 'Old', tag: 'new' });
      });

      it('when a patch is nested deeply, then a deep member it names is a 400 and one it ignores is taken: never unreadable, nothing changed by the 400', async () => {
        const id = freshId();
        await create({ id, name: 'Old' });
        const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
        expect(await expectErrorResponse(await patch(id, `{"tag":${deep(30_000)}}`), 400)).toBe(
          'invalid plant: tag must be a string, or null to remove it, not an array',
        );
        expect(await stored(id)).toEqual({ id, name: 'Old' });
        const ignored = await patch(id, `{"name":"New","extra":${deep(30_000)}}`);
        expect(ignored.status).toBe(200);
        expect(await stored(id)).toEqual({ id, name: 'New' });
      });

      it('when the media type is not a merge patch, then 415 with Accept-Patch: application/merge-patch+json, and nothing changes; a UTF-8 charset is taken', async () => {
        const id = freshId();
        await create({ id, name: 'Old' });
        for (const type of [
          'application/json',
          'text/plain',
          'application/merge-patch+json; charset=latin1',
        ]) {
          const refused = await patch(id, { name: 'New' }, { 'Content-Type': type });
          expect(await expectErrorResponse(refused, 415)).toBe(
            'the request body must be application/merge-patch+json (UTF-8)',
          );
          expect(refused.headers.get('accept-patch')).toBe('application/merge-patch+json');
        }
        const encoded = await patch(id, { name: 'New' }, { 'Content-Encoding': 'gzip' });
        await expectErrorResponse(encoded, 415);
        expect(encoded.headers.get('accept-patch')).toBe('application/merge-patch+json');
        expect(await stored(id)).toEqual({ id, name: 'Old' });
        const taken = await patch(
          id,
          { name: 'New' },
          { 'Content-Type': 'Application/Merge-Patch+JSON; charset=utf-8' },
        );
        expect(taken.status).toBe(200);
      });

      it('when no plant is stored under the id, then it answers 404 and creates none', async () => {
        const id = freshId();
        await expectErrorResponse(await patch(id, { name: 'New' }), 404);
        expect(await stored(id)).toBeUndefined();
      });

      it('when two patches change different members at once, then both changes are kept', async () => {
        const id = freshId();
        await create({ id, name: 'Old', tag: 'old' });
        const [name, tag] = await Promise.all([patch(id, { name: 'New' }), patch(id, { tag: 'new' })]);
        expect([name.status, tag.status]).toEqual([200, 200]);
        expect(await stored(id)).toEqual({ id, name: 'New', tag: 'new' });
      });
    });

    describe('the order of checks: credential, scope, path id, media type, size, JSON and fields, then the plant', () => {
      it('when a request breaks every rule, then each is answered in turn as the earlier ones are mended', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Kept' });
        const absent = freshId();
        const big = JSON.stringify({ name: 'x'.repeat(70_000) });
        for (const send of [put, patch]) {
          const noCredential = await fetch(`${server.url}/plants/x`, {
            method: send === put ? 'PUT' : 'PATCH',
            headers: { 'Content-Type': 'text/plain', 'If-Match': '"stale"' },
            body: '{"name":1}',
          });
          await expectErrorResponse(noCredential, 401);
          expect(
            await expectErrorResponse(await send('x', '{"name":1}', { 'Content-Type': 'text/plain' }), 400),
          ).toMatch(/^invalid parameter: id /);
          await expectErrorResponse(
            await send(absent, big, { 'Content-Type': 'text/plain', 'If-Match': '"stale"' }),
            415,
          );
          await expectErrorResponse(await send(absent, big, { 'If-Match': '"stale"' }), 413);
          expect(
            await expectErrorResponse(await send(absent, '{"name":1}', { 'If-Match': '"stale"' }), 400),
          ).toMatch(/name must be a string/);
          expect(
            await expectErrorResponse(await send(absent, { name: 'x' }, { 'If-Match': '"stale"' }), 412),
          ).toBe(
            `the plant with id ${absent} does not meet the precondition: it holds other content, or there is none`,
          );
          await expectErrorResponse(await send(absent, { name: 'x' }), 404);
          await expectErrorResponse(await send(id, { name: 'x' }, { 'If-Match': '"stale"' }), 412);
          expect((await send(id, { name: 'Kept' }, { 'If-Match': etag })).status).toBe(200);
        }
        expect(await stored(id)).toEqual({ id, name: 'Kept' });
        expect(await stored(absent)).toBeUndefined();
      });
    });

    describe('ETags', () => {
      it('when a plant is created, read, replaced and patched, then every answer carrying it has the strong ETag of its content, the same from each', async () => {
        const id = freshId();
        const created = await create({ id, name: 'Monstera', tag: 'aroid' });
        // The SHA-256 of ["Monstera","aroid"] (printf | openssl dgst -sha256 -binary | base64url): the
        // same on every storage, every replica, after every restart.
        expect(created).toBe('"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"');
        const read = await get(`/plants/${id}`);
        const head = await request('HEAD', `/plants/${id}`);
        expect([read.headers.get('etag'), head.headers.get('etag')]).toEqual([created, created]);
        const retried = await server.createPlant({ id: Number(id), name: 'Monstera', tag: 'aroid' });
        expect(retried.headers.get('etag')).toBe(created);
        const replaced = await put(id, { name: 'Fern' });
        expect(replaced.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
        expect(replaced.headers.get('etag')).not.toBe(created);
        expect((await get(`/plants/${id}`)).headers.get('etag')).toBe(replaced.headers.get('etag'));
        const patched = await patch(id, { name: 'Monstera', tag: 'aroid' });
        expect(patched.headers.get('etag')).toBe(created);
      });

      it('when two plants hold the same content under different ids, then they have the same ETag; an absent and an empty tag differ', async () => {
        const [a, b, c] = [freshId(), freshId(), freshId()];
        expect(await create({ id: a, name: 'Twin', tag: '' })).toBe(
          await create({ id: b, name: 'Twin', tag: '' }),
        );
        expect(await create({ id: c, name: 'Twin' })).not.toBe(
          (await get(`/plants/${a}`)).headers.get('etag'),
        );
      });
    });

    describe('If-None-Match on GET and HEAD', () => {
      it('when it names the current ETag (strong, weak, in a list, or *), then 304 with the ETag and no body, for GET and HEAD', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Cactus', tag: 'desert' });
        for (const field of [etag, `W/${etag}`, `"other", ${etag}`, '*', ` ${etag} `, `W/"x",,W/${etag}`]) {
          for (const method of ['GET', 'HEAD']) {
            const response = await request(method, `/plants/${id}`, { 'If-None-Match': field });
            expect(response.status, `${method} ${field}`).toBe(304);
            expect(response.headers.get('etag')).toBe(etag);
            expect(response.headers.get('content-type')).toBeNull();
            expect(await response.text()).toBe('');
          }
        }
      });

      it('when it does not name the ETag, or cannot be read, then 200 with the plant and its ETag', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Cactus' });
        for (const field of [
          '"other"',
          etag.slice(1, -1),
          `${etag}x`,
          '*, "a"',
          'W/',
          '',
          `"${'a'.repeat(12_000)}"`,
        ]) {
          const response = await get(`/plants/${id}`, { 'If-None-Match': field });
          expect(response.status, field).toBe(200);
          expect(response.headers.get('etag')).toBe(etag);
          expect(await response.json()).toEqual({ name: 'Cactus' });
        }
      });

      it('when the plant has changed since, then the old ETag gets 200 with the new plant', async () => {
        const id = freshId();
        const old = await create({ id, name: 'Before' });
        await put(id, { name: 'After' });
        const response = await get(`/plants/${id}`, { 'If-None-Match': old });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ name: 'After' });
      });

      it('when no plant is stored, then If-None-Match: * is 404', async () => {
        await expectErrorResponse(await get(`/plants/${freshId()}`, { 'If-None-Match': '*' }), 404);
      });
    });

    describe('If-Match on PUT, PATCH and DELETE', () => {
      it('when it names the current ETag (alone, in a list, or *), then the change is made', async () => {
        const id = freshId();
        let etag = await create({ id, name: 'v0' });
        for (const [index, field] of [
          (e: string) => e,
          (e: string) => `"a", W/"b", ${e}`,
          () => '*',
        ].entries()) {
          const response = await put(id, { name: `v${index + 1}` }, { 'If-Match': field(etag) });
          expect(response.status).toBe(200);
          etag = response.headers.get('etag') as string;
          const patched = await patch(id, { tag: `t${index}` }, { 'If-Match': field(etag) });
          expect(patched.status).toBe(200);
          etag = patched.headers.get('etag') as string;
        }
        expect(await stored(id)).toEqual({ id, name: 'v3', tag: 't2' });
        expect((await request('DELETE', `/plants/${id}`, { 'If-Match': etag })).status).toBe(204);
        expect(await stored(id)).toBeUndefined();
      });

      it('when it names another content, the weak form of the ETag, or cannot be read, then 412 with the Error body, and nothing changes', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Kept', tag: 'kept' });
        const stale = plantETag({ name: 'Kept' });
        for (const field of [
          stale,
          `W/${etag}`,
          etag.slice(1, -1),
          `${etag} x`,
          `*, ${etag}`,
          '',
          'W/*',
          `"${'a'.repeat(1_000)}`,
        ]) {
          await expectErrorResponse(await put(id, { name: 'Changed' }, { 'If-Match': field }), 412);
          await expectErrorResponse(await patch(id, { name: 'Changed' }, { 'If-Match': field }), 412);
          await expectErrorResponse(await request('DELETE', `/plants/${id}`, { 'If-Match': field }), 412);
        }
        expect(await stored(id)).toEqual({ id, name: 'Kept', tag: 'kept' });
      });

      it('when no plant is stored and If-Match is given, even *, then 412, not 404, and nothing is created', async () => {
        const id = freshId();
        for (const field of ['*', plantETag({ name: 'x' })]) {
          await expectErrorResponse(await put(id, { name: 'x' }, { 'If-Match': field }), 412);
          await expectErrorResponse(await patch(id, { name: 'x' }, { 'If-Match': field }), 412);
          await expectErrorResponse(await request('DELETE', `/plants/${id}`, { 'If-Match': field }), 412);
        }
        expect(await stored(id)).toBeUndefined();
      });

      it('when If-Match is an enormous list, as long as Node takes, then it is read: 200 when it holds the ETag, 412 when not; longer, 431; never a 5xx', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Listed' });
        const many = Array.from({ length: 300 }, (_, index) => plantETag({ name: `other ${index}` })).join(
          ', ',
        );
        expect(many.length).toBeGreaterThan(14_000);
        await expectErrorResponse(await put(id, { name: 'Listed' }, { 'If-Match': many }), 412);
        expect((await put(id, { name: 'Listed' }, { 'If-Match': `${many}, ${etag}` })).status).toBe(200);
        const garbage = '"'.repeat(15_000);
        await expectErrorResponse(await patch(id, { name: 'x' }, { 'If-Match': garbage }), 412);
        const tooLong = parseRawResponse(
          await rawExchange(
            server.port,
            `DELETE /plants/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nIf-Match: ${many}, ${many}\r\n\r\n`,
          ),
        );
        expect(tooLong.status).toBe(431);
        expect(await stored(id)).toEqual({ id, name: 'Listed' });
      });

      it('when If-Match comes twice, then the two lines are one list (as Node joins them): a match in either is a match', async () => {
        const id = freshId();
        const etag = await create({ id, name: 'Twice' });
        const send = (first: string, second: string) =>
          rawExchange(
            server.port,
            `PATCH /plants/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
              `Content-Type: application/merge-patch+json\r\nIf-Match: ${first}\r\nIf-Match: ${second}\r\n` +
              'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
          ).then(parseRawResponse);
        expect((await send('"stale"', etag)).status).toBe(200);
        expect((await send('"stale"', '"older"')).status).toBe(412);
        // `*` is not a list element: `*, "x"` is no entity-tag list, and matches nothing.
        expect((await send('*', '"stale"')).status).toBe(412);
      });

      it('when many writers send the same If-Match at once, then exactly one succeeds and every other gets 412', async () => {
        for (const [method, writers] of [
          ['PUT', 2],
          ['PATCH', 2],
          ['PUT', 8],
          ['PATCH', 8],
          ['DELETE', 8],
        ] as const) {
          const id = freshId();
          const etag = await create({ id, name: 'Contested', tag: 'start' });
          const answers = await Promise.all(
            Array.from({ length: writers }, (_, index) => {
              const headers = { 'If-Match': etag };
              if (method === 'PUT') return put(id, { name: `writer ${index}` }, headers);
              if (method === 'PATCH') return patch(id, { tag: `writer ${index}` }, headers);
              return request('DELETE', `/plants/${id}`, headers);
            }),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          expect(statuses, `${writers} writers of ${method}`).toEqual([
            method === 'DELETE' ? 204 : 200,
            ...Array(writers - 1).fill(412),
          ]);
          const winner = answers.find((answer) => answer.status !== 412) as Response;
          const plant = await stored(id);
          if (method === 'DELETE') expect(plant).toBeUndefined();
          else expect(plantETag(plant as NewPlant)).toBe(winner.headers.get('etag'));
          for (const loser of answers.filter((answer) => answer.status === 412))
            await expectErrorResponse(loser, 412);
        }
      });
    });

    describe('GET /plants?tag=', () => {
      // Tags of each test's own: the storage is shared with the other tests.
      const unique = (label: string) => `${label} ${freshId()}`;
      const listed = async (path: string) => {
        const response = await get(path);
        expect(response.status).toBe(200);
        const body = await response.text();
        return {
          ids: [...body.matchAll(/"id":(-?\d+)/g)].map((match) => BigInt(match[1] as string)),
          body,
          link: response.headers.get('link'),
        };
      };

      it('when a tag is asked, then only the plants whose tag is exactly it are listed, by ascending id', async () => {
        const tag = unique('aroid');
        const ids = [freshId(), freshId(), freshId(), freshId(), freshId(), freshId()];
        await create({ id: ids[0] as bigint, name: 'a', tag });
        await create({ id: ids[1] as bigint, name: 'b', tag: tag.toUpperCase() });
        await create({ id: ids[2] as bigint, name: 'c', tag: `${tag} ` });
        await create({ id: ids[3] as bigint, name: 'd' });
        await create({ id: ids[4] as bigint, name: 'e', tag });
        await create({ id: ids[5] as bigint, name: 'f', tag: tag.slice(0, -1) });
        const page = await listed(`/plants?tag=${encodeURIComponent(tag)}`);
        expect(page.ids).toEqual([ids[0], ids[4]]);
        expect(JSON.parse(page.body.replace(/"id":(\d+)/g, '"id":"$1"'))).toEqual([
          { id: String(ids[0]), name: 'a', tag },
          { id: String(ids[4]), name: 'e', tag },
        ]);
        expect(page.link).toBeNull();
      });

      it('when tag= is asked, then the plants with the empty tag are listed, never those without a tag', async () => {
        const [empty, none] = [freshId(), freshId()];
        await create({ id: empty, name: 'empty', tag: '' });
        await create({ id: none, name: 'none' });
        const page = await listed(`/plants?tag=&after=${empty - 1n}&limit=1000`);
        expect(page.ids).toContain(empty);
        expect(page.ids).not.toContain(none);
      });

      it('when a tag holds every kind of character, then a walk by its Link keeps it, percent-encoded, and sees each of its plants once', async () => {
        const tag = `${unique('a b+c&d=e/f?g#h%i"j<k>l;m,n')} \u00e9 \u{1F335} \ufeff\u2028 'x'!*()~`;
        const ids = Array.from({ length: 5 }, freshId);
        for (const id of ids) await create({ id, name: `plant ${id}`, tag });
        await create({ id: freshId(), name: 'other', tag: `${tag}.` });
        const seen: bigint[] = [];
        let next: string | undefined = `/plants?limit=2&tag=${encodeURIComponent(tag)}`;
        while (next !== undefined) {
          const page = await listed(next);
          seen.push(...page.ids);
          if (page.link === null) break;
          expect(page.link).toBe(
            `</plants?limit=2&after=${page.ids.at(-1)}&tag=${encodeURIComponent(tag)}>; rel="next"`,
          );
          next = /^<([^>]+)>; rel="next"$/.exec(page.link)?.[1];
        }
        expect(seen).toEqual(ids);
      });

      it('when a tag is given twice, not UTF-8, or with NUL, then 400 naming it; 64 KB of tag in the query is 431; never a 5xx', async () => {
        expect(await expectErrorResponse(await get('/plants?tag=a&tag=b'), 400)).toBe(
          'invalid parameter: tag must be given once',
        );
        expect(await expectErrorResponse(await get('/plants?tag=%FF'), 400)).toBe(
          'invalid parameter: tag must be UTF-8 once percent-decoded',
        );
        expect(await expectErrorResponse(await get('/plants?tag=a%00b'), 400)).toBe(
          'invalid parameter: tag must not contain the NUL character (U+0000)',
        );
        // U+FFFD sent as UTF-8 is a character like any other.
        expect((await get('/plants?tag=%EF%BF%BD')).status).toBe(200);
        const huge = parseRawResponse(
          await rawExchange(
            server.port,
            `GET /plants?tag=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
          ),
        );
        expect(huge.status).toBe(431);
      });

      it('when the plants of a tag are long, then a page stops before 1 MiB with a Link that keeps the tag, and the walk sees each once', async () => {
        const tag = unique('long');
        const ids = Array.from({ length: 36 }, freshId);
        for (const [index, id] of ids.entries()) {
          const name = `${id} ${'Monstera deliciosa '.repeat(3_200)}`;
          await create({ id, name, tag: index % 3 === 2 ? `${tag} other` : tag });
        }
        const tagged = ids.filter((_, index) => index % 3 !== 2);
        const pages: { bytes: number; ids: bigint[]; link: string | null }[] = [];
        let next: string | undefined = `/plants?limit=1000&tag=${encodeURIComponent(tag)}`;
        while (next !== undefined) {
          const page = await listed(next);
          pages.push({ bytes: Buffer.byteLength(page.body), ids: page.ids, link: page.link });
          next = page.link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(page.link)?.[1];
        }
        expect(pages.flatMap((page) => page.ids)).toEqual(tagged);
        expect(pages.length).toBeGreaterThan(1);
        for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(1024 * 1024);
        expect(pages[0]?.link).toBe(
          `</plants?limit=1000&after=${pages[0]?.ids.at(-1)}&tag=${encodeURIComponent(tag)}>; rel="next"`,
        );
      });
    });
  });
}
