import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlantStorage } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { BUSY_MACHINE_SLACK_MS } from '@plant-store/test-support';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { configuredCredentials } from '../src/auth/configured-credentials.ts';
import { loadConfig } from '../src/config.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { startTestServer } from './support/test-server.ts';

/** A memory storage whose inserts wait until released, and which counts its closes. */
function gatedStorage() {
  const inner = openMemoryPlantStorage();
  let release = (): void => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let enter = (): void => {};
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  let closes = 0;
  const storage: PlantStorage = {
    plants: {
      insertIfAbsent: async (plant) => {
        enter();
        await released;
        return inner.plants.insertIfAbsent(plant);
      },
      findById: (id) => inner.plants.findById(id),
      listAfter: (after, limit, maxBytes, tag) => inner.plants.listAfter(after, limit, maxBytes, tag),
      update: (id, change, expected) => inner.plants.update(id, change, expected),
      deleteById: (id, expected) => inner.plants.deleteById(id, expected),
    },
    checkReady: () => inner.checkReady(),
    close: async () => {
      closes++;
      await inner.close();
    },
  };
  return { storage, entered, release, closes: () => closes, inner };
}

describe('stopping the server', () => {
  it('when stop() is called while a request is in flight, then that request completes, and storage closes after it', async () => {
    const gate = gatedStorage();
    const server = await startTestServer(gate.storage);
    const inFlight = server.createPlant({ id: 1, name: 'in flight' });
    await gate.entered;

    let stopped = false;
    const stopping = server.stop().then(() => {
      stopped = true;
    });
    // No new connections are taken once stopping has begun.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(stopped).toBe(false);
    expect(gate.closes()).toBe(0);

    gate.release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ name: 'in flight' });

    await stopping;
    expect(gate.closes()).toBe(1);
    expect(server.logs.lines().map((line) => line.msg)).toContain('stopped');
  });

  it('when stop() is called twice, then both calls resolve and storage is closed once', async () => {
    const gate = gatedStorage();
    const server = await startTestServer(gate.storage);
    await Promise.all([server.stop(), server.stop()]);
    await server.stop();
    expect(gate.closes()).toBe(1);
  });

  it('when a request is still in flight at SHUTDOWN_TIMEOUT_MS, then it is cut off and stop() resolves', async () => {
    const gate = gatedStorage();
    const server = await startTestServer(gate.storage, { SHUTDOWN_TIMEOUT_MS: '200' });
    const stuck = server.createPlant({ id: 2, name: 'stuck' }).then(
      (response) => response.status,
      () => 'cut off',
    );
    await gate.entered;
    await server.stop();
    expect(await stuck).toBe('cut off');
    expect(gate.closes()).toBe(1);
    gate.release();
  });

  it('when the storage never finishes closing, then stop() still resolves within SHUTDOWN_TIMEOUT_MS, with a warning naming the close it abandoned', async () => {
    const budgetMs = 300;
    const gate = gatedStorage();
    gate.release();
    const server = await startTestServer(
      { ...gate.storage, close: () => new Promise<void>(() => {}) },
      { SHUTDOWN_TIMEOUT_MS: String(budgetMs) },
    );
    const startedAt = performance.now();
    // Within the budget, give or take a busy machine: past that, it is taken for "never resolves".
    const outcome = await Promise.race([
      server.stop().then(() => 'stopped'),
      sleep(budgetMs + BUSY_MACHINE_SLACK_MS, 'still stopping', { ref: false }),
    ]);
    expect(outcome, 'stopped within SHUTDOWN_TIMEOUT_MS, give or take a busy machine').toBe('stopped');
    // The close had until the deadline (a timer may fire a millisecond early of performance.now()).
    expect(performance.now() - startedAt, 'the close given SHUTDOWN_TIMEOUT_MS').toBeGreaterThanOrEqual(
      budgetMs - 2,
    );
    expect(server.logs.lines()).toContainEqual(
      expect.objectContaining({
        level: 40,
        step: 'closing the storage',
        msg: 'stopping: closing the storage did not end by the deadline: abandoned',
      }),
    );
    expect(server.logs.lines().map((line) => line.msg)).toContain('stopped');
  });

  it('when SHUTDOWN_GRACE_MS is set, then /readyz answers 503 at once and the server serves new connections until the grace ends', async () => {
    // Long enough for the requests below on a busy machine: they run inside the real grace.
    const graceMs = 4_000;
    const gate = gatedStorage();
    gate.release();
    const server = await startTestServer(gate.storage, {
      SHUTDOWN_GRACE_MS: String(graceMs),
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    const messages = () => server.logs.lines().map((line) => line.msg);
    const startedAt = performance.now();
    let stopped = false;
    const stopping = server.stop().then(() => {
      stopped = true;
    });
    expect(server.logs.lines()).toContainEqual(
      expect.objectContaining({ graceMs, msg: 'stopping: /readyz answers 503, serving on for the grace' }),
    );

    // The grace: what a load balancer sees while its check takes this instance out.
    const ready = await fetch(`${server.url}/readyz`);
    expect(await expectErrorResponse(ready, 503)).toBe('the server is shutting down');
    const created = await server.createPlant({ id: 3, name: 'during the grace' });
    expect(created.status).toBe(200);
    expect(created.headers.get('connection')).toBe('close');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(messages()).not.toContain('stopping: draining requests in flight');
    expect(stopped).toBe(false);
    expect(gate.closes()).toBe(0);
    expect(await gate.inner.plants.findById(3n)).toMatchObject({ name: 'during the grace' });

    await stopping;
    // It served for the whole grace (a timer may fire a millisecond early of performance.now()).
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(graceMs - 2);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(gate.closes()).toBe(1);
    expect(messages().indexOf('stopping: /readyz answers 503, serving on for the grace')).toBeLessThan(
      messages().indexOf('stopping: draining requests in flight'),
    );
    expect(messages()).toContain('stopped');
  });

  it('when the server is shutting down, then /readyz answers 503 and every answer closes its connection', async () => {
    const app = createApp({
      storage: openMemoryPlantStorage(),
      credentials: configuredCredentials(loadConfig({ API_TOKENS: 't' }), pino({ level: 'silent' })).checker,
      bodyLimit: 1024,
      logger: pino({ level: 'silent' }),
      isShuttingDown: () => true,
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ready = await fetch(`${url}/readyz`);
      expect(await expectErrorResponse(ready, 503)).toBe('the server is shutting down');
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(ready.headers.get('connection')).toBe('close');
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('connection')).toBe('close');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
