// Events waiting in memory (`memory:` storage) are bounded by WEBHOOK_MEMORY_BACKLOG, and /metrics never
// fails (DESIGN.md, third round; issue 19, item 4): a receiver that hangs, a backlog of the size,
// then creates at the bound.
import type { ServerResponse } from 'node:http';
import { plantCreated } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { eventually, newSecret, startTestReceiver, type TestReceiver } from '@plant-store/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { RunningServer } from '../src/server.ts';
import { startServer } from '../src/start.ts';
import { reportDrill } from './support/drill-report.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { captureLogs } from './support/log-capture.ts';
import { startTestServer, TOKEN } from './support/test-server.ts';

const AUTH = { authorization: `Bearer ${TOKEN}` };
const secret = newSecret();
const receivers: TestReceiver[] = [];
const servers: RunningServer[] = [];

afterEach(async () => {
  // The receivers first: attempts they held end at once, and the stops need not wait for them.
  for (const receiver of receivers.splice(0)) await receiver.close();
  for (const server of servers.splice(0)) await server.stop();
});

/** A receiver that holds every request open until `answerAll`, then answers them and the next ones 204. */
async function holdingReceiver() {
  const receiver = await startTestReceiver([secret]);
  receivers.push(receiver);
  const held: ServerResponse[] = [];
  let holding = true;
  receiver.answer = (_request, response) => {
    if (holding) held.push(response);
    else response.writeHead(204).end();
  };
  return {
    receiver,
    answerAll: () => {
      holding = false;
      for (const response of held.splice(0)) response.writeHead(204).end();
    },
  };
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const webhookEnv = (receiver: TestReceiver, backlog: number) => ({
  WEBHOOK_URLS: receiver.url,
  WEBHOOK_SECRET: secret,
  WEBHOOK_MEMORY_BACKLOG: String(backlog),
  WEBHOOK_RETRY_SCHEDULE: '100ms',
  LOG_LEVEL: 'warn',
});

describe('webhook events waiting in memory', { timeout: 120_000 }, () => {
  it('when 150,000 events wait for a receiver that hangs, then /metrics answers 200 with the backlog gauges', async () => {
    const count = 150_000;
    const { receiver } = await holdingReceiver();
    const storage = openMemoryPlantStorage({ events: true, maxWaitingEvents: count });
    const before = Date.now();
    for (let id = 1; id <= count; id += 1) {
      const plant = { id: BigInt(id), name: `waiting ${id}` };
      await storage.plants.insertIfAbsent(plant, plantCreated(plant));
    }
    const server = await startTestServer(storage, webhookEnv(receiver, count));
    servers.push(server);
    // Every event has left the outbox: all of them wait for delivery in the dispatcher.
    await eventually(async () => (await storage.events?.oldestRecordedAt()) === undefined, 'outbox empty');

    const started = performance.now();
    const response = await fetch(`${server.url}/metrics`, { headers: AUTH });
    const scrapeMs = Math.round(performance.now() - started);
    expect(response.status).toBe(200);
    const text = await response.text();
    const age = sample(text, 'plant_store_webhooks_oldest_undelivered_age_seconds');
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((Date.now() - before) / 1000 + 1);
    expect(sample(text, 'plant_store_webhooks_dead')).toBe(0);
    expect(sample(text, 'plant_store_plants_created_total')).toBe(0);
    reportDrill('webhook-memory-backlog', { eventsWaiting: count, metricsStatus: 200, scrapeMs });
  });

  it('when WEBHOOK_MEMORY_BACKLOG events wait in the outbox, then creates answer 503 and store nothing; once the backlog drains, creates answer 200 again', async () => {
    const bound = 5;
    const hook = await holdingReceiver();
    // memory: opened by the service itself, from its settings.
    const service = await startServer(
      loadConfig({
        PORT: '0',
        API_TOKENS: TOKEN,
        DATABASE_URL: 'memory:',
        SHUTDOWN_TIMEOUT_MS: '100',
        ...webhookEnv(hook.receiver, bound),
      }),
      { logDestination: captureLogs().destination },
    );
    servers.push(service);
    const create = (id: number) =>
      fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: `{"id":${id},"name":"plant ${id}"}`,
      });

    const accepted: number[] = [];
    let refused: Response | undefined;
    let id = 0;
    while (refused === undefined && id < 10 * bound) {
      id += 1;
      const response = await create(id);
      if (response.status === 200) {
        accepted.push(id);
        await response.arrayBuffer();
      } else refused = response;
    }
    // Refused only once the outbox held `bound` events; the dispatcher holds at most as many more.
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toBe('5');
    await expectErrorResponse(refused as Response, 503);
    expect(accepted.length).toBeGreaterThanOrEqual(bound);
    expect(accepted.length).toBeLessThanOrEqual(2 * bound);
    const lookUp = await fetch(`${service.url}/plants/${id}`, { headers: AUTH });
    await expectErrorResponse(lookUp, 404);
    // A retry of a stored plant records nothing: still 200.
    const retry = await create(accepted[0] as number);
    expect(retry.status).toBe(200);
    await retry.arrayBuffer();

    hook.answerAll();
    await eventually(
      () => new Set(hook.receiver.received.map((entry) => entry.body)).size === accepted.length,
      'every accepted plant sent: the outbox is empty',
    );
    const again = await create(id);
    expect(again.status).toBe(200);
    await eventually(
      () => hook.receiver.received.some((entry) => entry.body === `{"id":${id},"name":"plant ${id}"}`),
      'the plant refused before, created now, delivered',
    );
    expect(hook.receiver.verified()).toHaveLength(hook.receiver.received.length);
  });
});
