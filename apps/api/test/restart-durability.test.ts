import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS } from '@plant-store/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/start.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { captureLogs } from './support/log-capture.ts';
import { TOKEN } from './support/test-server.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'plant-store-api-'));
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** The real server as configured from the environment: PGlite in dataDir, migrations at start. */
async function start() {
  const config = loadConfig({ PORT: '0', DATABASE_URL: `pglite:${dataDir}`, API_TOKENS: TOKEN });
  const logs = captureLogs();
  const server = await startServer(config, { logDestination: logs.destination });
  const createPlant = (body: unknown) =>
    fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { server, logs, createPlant };
}

// Two starts of the service, each opening embedded PostgreSQL on the folder.
describe('durability across restarts (embedded PostgreSQL in a data folder)', {
  timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
}, () => {
  it('when the service restarts, then a created plant is still there: the same content is a retry, other content a conflict', async () => {
    const first = await start();
    expect(first.logs.lines().find((line) => line.msg === 'listening')).toMatchObject({ storage: 'pglite' });
    expect(
      (await first.createPlant('{"id":9223372036854775807,"name":"Monstera","tag":"aroid"}')).status,
    ).toBe(200);
    expect((await fetch(`${first.server.url}/readyz`)).status).toBe(200);
    await first.server.stop();

    const second = await start();
    try {
      const retry = await second.createPlant('{"id":9223372036854775807,"name":"Monstera","tag":"aroid"}');
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
      await expectErrorResponse(
        await second.createPlant('{"id":9223372036854775807,"name":"Monstera"}'),
        409,
      );
      await expectErrorResponse(
        await second.createPlant('{"id":9223372036854775807,"name":"Other","tag":"aroid"}'),
        409,
      );
    } finally {
      await second.server.stop();
    }
  });
});
