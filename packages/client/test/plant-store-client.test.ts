// The client against the real service: @plant-store/api started on a free port, in memory.
import { loadConfig, type RunningServer, startServer } from '@plant-store/api';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CreatePlantErrorStatus,
  type CreatePlantResult,
  createPlantStoreClient,
  type NewPlant,
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

describe('createPlant', () => {
  it('when a plant with the largest int64 id is created, then it answers the plant, and the id reached the service exactly', async () => {
    const plant: NewPlant = { id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' };
    expect(await client().createPlant(plant)).toEqual({
      ok: true,
      status: 200,
      plant: { name: 'Monstera', tag: 'aroid' },
    });
    // The neighbour a double would round to is another plant: a conflict would show the id was changed.
    const retry = await client().createPlant({ id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' });
    expect(retry.ok).toBe(true);
    const other = await client().createPlant({ id: 9223372036854775806n, name: 'Fern' });
    expect(other).toEqual({ ok: true, status: 200, plant: { name: 'Fern' } });
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
    expectTypeOf<CreatePlantErrorStatus>().toEqualTypeOf<400 | 401 | 408 | 409 | 413 | 415 | 500 | 503>();
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
