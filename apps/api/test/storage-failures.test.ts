import { type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from './support/expect-error.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

type Failure = 'none' | 'unavailable' | 'crash';

/** A storage over memory whose inserts and readiness checks fail on demand. */
function failingStorage(): { storage: PlantStorage; failWith(failure: Failure): void } {
  const inner = openMemoryPlantStorage();
  let failure: Failure = 'none';
  const fail = (): void => {
    if (failure === 'unavailable') throw new StorageUnavailableError('connect ECONNREFUSED 10.0.0.7:5432');
    if (failure === 'crash')
      throw new Error('relation "plants" violates secret-db password=hunter2 at 10.0.0.7');
  };
  return {
    failWith: (next) => {
      failure = next;
    },
    storage: {
      plants: {
        insertIfAbsent: async (plant) => {
          fail();
          return inner.plants.insertIfAbsent(plant);
        },
        findById: (id) => inner.plants.findById(id),
        listAfter: (after, limit, maxBytes, tag) => inner.plants.listAfter(after, limit, maxBytes, tag),
        update: (id, change, expected) => inner.plants.update(id, change, expected),
        deleteById: (id, expected) => inner.plants.deleteById(id, expected),
      },
      checkReady: async () => fail(),
      close: () => inner.close(),
    },
  };
}

describe('when storage fails', () => {
  const fake = failingStorage();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(fake.storage);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('when storage is unavailable, then a create answers 503 with Retry-After and a later one succeeds', async () => {
    fake.failWith('unavailable');
    const response = await server.createPlant({ id: 1, name: 'a' }, { 'X-Request-Id': 'unavailable-1' });
    expect(await expectErrorResponse(response, 503)).toBe('storage is unavailable, try again later');
    expect(response.headers.get('retry-after')).toBe('5');
    expect(server.logs.requests().find((l) => l.requestId === 'unavailable-1')).toMatchObject({
      status: 503,
      err: { type: 'StorageUnavailableError' },
    });

    fake.failWith('none');
    expect((await server.createPlant({ id: 1, name: 'a' })).status).toBe(200);
    expect(await server.storage.plants.findById(1n)).toEqual({ id: 1n, name: 'a' });
  });

  it('when storage is unavailable, then /readyz answers 503 with Retry-After while /healthz stays 200', async () => {
    fake.failWith('unavailable');
    const ready = await fetch(`${server.url}/readyz`);
    await expectErrorResponse(ready, 503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    fake.failWith('none');
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('when the readiness check fails unexpectedly, then /readyz answers 503 and logs the cause', async () => {
    fake.failWith('crash');
    const ready = await fetch(`${server.url}/readyz`, { headers: { 'X-Request-Id': 'ready-crash' } });
    expect(await expectErrorResponse(ready, 503)).toBe('storage is not ready');
    expect(await ready.text().catch(() => '')).not.toContain('hunter2');
    const line = server.logs.requests().find((l) => l.requestId === 'ready-crash');
    expect(JSON.stringify(line)).toContain('hunter2');
    fake.failWith('none');
  });

  it('when storage throws something unexpected, then it answers 500 leaking nothing, and logs the error', async () => {
    fake.failWith('crash');
    const response = await server.createPlant({ id: 2, name: 'b' }, { 'X-Request-Id': 'crash-1' });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe('{"error":500,"message":"internal server error"}');

    const line = server.logs.requests().find((l) => l.requestId === 'crash-1');
    expect(line).toMatchObject({
      status: 500,
      level: 50,
      err: { message: expect.stringContaining('hunter2') },
    });
    expect(server.logs.requests().filter((l) => l.requestId === 'crash-1')).toHaveLength(1);

    fake.failWith('none');
    expect((await server.createPlant({ id: 2, name: 'b' })).status).toBe(200);
  });
});
