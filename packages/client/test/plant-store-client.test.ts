// The client against the real service: @plant-store/api started on a free port, in memory.
import { loadConfig, type RunningServer, startServer } from '@plant-store/api';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CreatePlantErrorStatus,
  type CreatePlantResult,
  createPlantStoreClient,
  type GetPlantResult,
  ListPlantsError,
  type NewPlant,
  type ReplacePlantErrorStatus,
  UnexpectedResponseError,
} from '../src/index.ts';

const TOKEN = 'client-test-token';
let server: RunningServer;

beforeAll(async () => {
  const config = loadConfig({ PORT: '0', DATABASE_URL: 'memory:', API_TOKENS: TOKEN, LOG_LEVEL: 'silent' });
  server = await startServer(config);
});
afterAll(async () => {
  await server?.stop();
});

const client = () => createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
/** A strong ETag as the service makes them. */
const ETAG = expect.stringMatching(/^"[A-Za-z0-9_-]{43}"$/);

describe('createPlant', () => {
  it('when a plant with the largest int64 id is created, then it answers the plant, and the id reached the service exactly', async () => {
    const plant: NewPlant = { id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' };
    expect(await client().createPlant(plant)).toEqual({
      ok: true,
      status: 200,
      plant: { name: 'Monstera', tag: 'aroid' },
      etag: ETAG,
    });
    // The neighbour a double would round to is another plant: a conflict would show the id was changed.
    const retry = await client().createPlant({ id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' });
    expect(retry.ok).toBe(true);
    const other = await client().createPlant({ id: 9223372036854775806n, name: 'Fern' });
    expect(other).toEqual({ ok: true, status: 200, plant: { name: 'Fern' }, etag: ETAG });
  });

  it('when two ids differ beyond what a double tells apart, then they are two plants', async () => {
    expect((await client().createPlant({ id: 9007199254740993n, name: 'odd' })).ok).toBe(true);
    // Rounded through a number, this id would be the one above, with other content: a 409.
    expect((await client().createPlant({ id: 9007199254740992n, name: 'even' })).ok).toBe(true);
  });

  it('when the same id is sent with other content, then it is a typed 409', async () => {
    await client().createPlant({ id: -9223372036854775808n, name: 'first' });
    const result = await client().createPlant({ id: -9223372036854775808n, name: 'second' });
    expect(result).toEqual({
      ok: false,
      status: 409,
      error: { error: 409, message: expect.stringContaining('already exists') },
    });
  });

  it('when the token is wrong, then it is a typed 401 with the challenge', async () => {
    const result = await createPlantStoreClient({ baseUrl: server.url, token: 'wrong' }).createPlant({
      id: 1n,
      name: 'a',
    });
    expect(result).toMatchObject({
      ok: false,
      status: 401,
      challenge: 'Bearer realm="plant-store", error="invalid_token"',
    });
  });

  it('when the name holds a NUL character, then it is a typed 400 naming the field', async () => {
    const result = await client().createPlant({ id: 2n, name: 'a\u0000b' });
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      error: { error: 400, message: expect.stringMatching(/name must not contain/) },
    });
  });

  it('when the service answers something undocumented, then it rejects with UnexpectedResponseError', async () => {
    const wrongBase = createPlantStoreClient({ baseUrl: `${server.url}/nowhere`, token: TOKEN });
    await expect(wrongBase.createPlant({ id: 3n, name: 'a' })).rejects.toBeInstanceOf(
      UnexpectedResponseError,
    );
  });

  it('when the result is used, then its types follow the document: bigint ids in, statuses and bodies typed out', () => {
    expectTypeOf<NewPlant['id']>().toEqualTypeOf<bigint>();
    expectTypeOf<CreatePlantErrorStatus>().toEqualTypeOf<
      400 | 401 | 403 | 408 | 409 | 413 | 415 | 500 | 503
    >();
    expectTypeOf<Extract<CreatePlantResult, { ok: false }>['error']>().toEqualTypeOf<{
      error: number;
      message: string;
    }>();
  });
});

describe('the openapi-fetch client over the whole document', () => {
  it('when /healthz and /readyz are asked, then their typed bodies come back', async () => {
    const { http } = client();
    expect((await http.GET('/healthz')).data).toEqual({ status: 'ok' });
    expect((await http.GET('/readyz')).data).toEqual({ status: 'ready' });
  });
});

describe('getPlant, deletePlant and listPlants', () => {
  // A band of ids of these tests' own, beyond 2^62: ids a double cannot hold.
  const BAND = 2n ** 62n + 1_000_000n;

  it('when a plant is read, then it answers the plant; when there is none, a typed 404', async () => {
    await client().createPlant({ id: BAND, name: 'Calathea', tag: 'prayer' });
    expect(await client().getPlant(BAND)).toEqual({
      ok: true,
      status: 200,
      plant: { name: 'Calathea', tag: 'prayer' },
      etag: ETAG,
    });
    expect(await client().getPlant(BAND + 1n)).toEqual({
      ok: false,
      status: 404,
      error: { error: 404, message: `there is no plant with id ${BAND + 1n}` },
    });
  });

  it('when a plant is deleted, then 204, then a typed 404, and the id takes other content', async () => {
    await client().createPlant({ id: BAND + 2n, name: 'Old' });
    expect(await client().deletePlant(BAND + 2n)).toEqual({ ok: true, status: 204 });
    expect((await client().deletePlant(BAND + 2n)).status).toBe(404);
    expect((await client().createPlant({ id: BAND + 2n, name: 'New' })).ok).toBe(true);
  });

  it('when plants are listed page by page, then the iterator follows Link to the end, every id an exact bigint', async () => {
    const ids = Array.from({ length: 5 }, (_, index) => BAND + 100n + BigInt(index));
    for (const id of ids) await client().createPlant({ id, name: `p${id}` });
    const listed: NewPlant[] = [];
    for await (const plant of client().listPlants({ limit: 2, after: BAND + 99n })) {
      listed.push(plant);
      if (listed.length === ids.length) break;
    }
    expect(listed).toEqual(ids.map((id) => ({ id, name: `p${id}` })));
  });

  it('when small ids are listed, then they are bigints too, as NewPlant says', async () => {
    await client().createPlant({ id: -5n, name: 'small' });
    const [first] = await Array.fromAsync(client().listPlants({ limit: 1, after: -6n }));
    expect(first).toEqual({ id: -5n, name: 'small' });
  });

  it('when a page fails with a documented status, then the iterator throws ListPlantsError with it', async () => {
    const listing = Array.fromAsync(
      createPlantStoreClient({ baseUrl: server.url, token: 'wrong' }).listPlants(),
    );
    await expect(listing).rejects.toBeInstanceOf(ListPlantsError);
    await expect(listing).rejects.toMatchObject({
      failure: { status: 401, challenge: expect.stringContaining('Bearer') },
    });
    await expect(Array.fromAsync(client().listPlants({ limit: 0 }))).rejects.toMatchObject({
      failure: { status: 400, error: { message: expect.stringContaining('limit') } },
    });
  });
});

describe('changing plants, ETags and conditional requests', () => {
  // A band of ids of these tests' own.
  const BAND = 2n ** 62n + 2_000_000n;
  let next = BAND;
  const freshId = () => next++;
  const created = async (plant: NewPlant): Promise<string> => {
    const result = await client().createPlant(plant);
    if (!result.ok) throw new Error(`could not create: ${result.error.message}`);
    return result.etag;
  };

  it('when a plant is replaced, then it answers the plant as stored with its new ETag, which a read gives too; without a tag, the tag is gone', async () => {
    const id = freshId();
    const first = await created({ id, name: 'Monstera', tag: 'aroid' });
    const replaced = await client().replacePlant(id, { name: 'Monstera deliciosa' });
    expect(replaced).toEqual({ ok: true, status: 200, plant: { name: 'Monstera deliciosa' }, etag: ETAG });
    expect(replaced.ok && replaced.etag).not.toBe(first);
    const read = await client().getPlant(id);
    expect(read).toEqual(replaced);
  });

  it('when a plant is patched, then only the members given change; tag null removes the tag', async () => {
    const id = freshId();
    await created({ id, name: 'Fern', tag: 'old' });
    expect(await client().patchPlant(id, { tag: 'new' })).toMatchObject({
      plant: { name: 'Fern', tag: 'new' },
    });
    expect(await client().patchPlant(id, { name: 'Boston fern', tag: null })).toMatchObject({
      ok: true,
      plant: { name: 'Boston fern' },
    });
    expect(await client().getPlant(id)).toMatchObject({ plant: { name: 'Boston fern' } });
  });

  it('when no plant is stored, then replacing or patching is a typed 404; a bad body a typed 400', async () => {
    const id = freshId();
    expect(await client().replacePlant(id, { name: 'x' })).toMatchObject({ ok: false, status: 404 });
    expect(await client().patchPlant(id, { name: 'x' })).toMatchObject({ ok: false, status: 404 });
    await created({ id, name: 'Kept' });
    expect(await client().replacePlant(id, { id: id + 1n, name: 'x' })).toMatchObject({
      ok: false,
      status: 400,
      error: { message: expect.stringContaining(`must be the id of the plant it changes, ${id}`) },
    });
  });

  it('when ifMatch names the ETag read, then the change is made; once the plant changed, a typed 412 and nothing changes', async () => {
    const id = freshId();
    const etag = await created({ id, name: 'Read' });
    const mine = await client().patchPlant(id, { tag: 'mine' }, { ifMatch: etag });
    expect(mine.ok).toBe(true);
    const stale = await client().replacePlant(id, { name: 'Theirs' }, { ifMatch: etag });
    expect(stale).toMatchObject({
      ok: false,
      status: 412,
      error: { error: 412, message: expect.stringContaining('does not meet the precondition') },
    });
    expect(await client().deletePlant(id, { ifMatch: etag })).toMatchObject({ ok: false, status: 412 });
    expect(await client().getPlant(id)).toMatchObject({ plant: { name: 'Read', tag: 'mine' } });
    expect(await client().deletePlant(id, { ifMatch: mine.ok ? mine.etag : '' })).toEqual({
      ok: true,
      status: 204,
    });
  });

  it('when two clients change a plant with the same ifMatch at once, then one succeeds and the other gets 412', async () => {
    const id = freshId();
    const etag = await created({ id, name: 'Contested' });
    const results = await Promise.all([
      client().patchPlant(id, { tag: 'a' }, { ifMatch: etag }),
      client().patchPlant(id, { tag: 'b' }, { ifMatch: etag }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 412]);
  });

  it('when ifNoneMatch names the current ETag, then a 304 with it and no plant; once the plant changed, 200 with the new one', async () => {
    const id = freshId();
    const etag = await created({ id, name: 'Cached' });
    expect(await client().getPlant(id, { ifNoneMatch: etag })).toEqual({ ok: true, status: 304, etag });
    await client().replacePlant(id, { name: 'Changed' });
    const fresh: GetPlantResult = await client().getPlant(id, { ifNoneMatch: etag });
    expect(fresh).toMatchObject({ ok: true, status: 200, plant: { name: 'Changed' } });
  });

  it('when plants are listed by tag, then only those with exactly that tag come, page after page', async () => {
    const tag = `tag & ${BAND} é`;
    const ids = [freshId(), freshId(), freshId(), freshId()];
    await created({ id: ids[0] as bigint, name: 'a', tag });
    await created({ id: ids[1] as bigint, name: 'b', tag: `${tag}!` });
    await created({ id: ids[2] as bigint, name: 'c', tag });
    await created({ id: ids[3] as bigint, name: 'd', tag });
    const listed = await Array.fromAsync(client().listPlants({ tag, limit: 1 }));
    expect(listed).toEqual([
      { id: ids[0], name: 'a', tag },
      { id: ids[2], name: 'c', tag },
      { id: ids[3], name: 'd', tag },
    ]);
  });

  it('when the results are typed, then their statuses follow the document', () => {
    expectTypeOf<ReplacePlantErrorStatus>().toEqualTypeOf<
      400 | 401 | 403 | 404 | 408 | 412 | 413 | 415 | 503
    >();
  });
});

describe('the token', () => {
  it('when the token is a function, then it is called before every request, so a fresh one is sent each time', async () => {
    let calls = 0;
    const plants = createPlantStoreClient({
      baseUrl: server.url,
      token: async () => {
        calls += 1;
        return TOKEN;
      },
    });
    expect((await plants.createPlant({ id: 2n ** 62n + 5_000_000n, name: 'fresh' })).ok).toBe(true);
    expect((await plants.getPlant(2n ** 62n + 5_000_000n)).ok).toBe(true);
    expect(calls).toBe(2);
  });
});
