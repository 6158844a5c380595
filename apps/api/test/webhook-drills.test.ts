/**
 * The webhook's drills (issue 13): each delivery is checked by a receiver that verifies it with the
 * `standardwebhooks` package, and each drill reports its counts (DRILL lines, reports/drills/).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openPostgresPlantStorage } from '@plant-store/storage-postgres';
import {
  eventually,
  newSecret,
  provideTestPostgres,
  randomPlantId,
  startTestReceiver,
  type TestReceiver,
} from '@plant-store/test-support';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../src/compose.ts';
import { loadConfig } from '../src/config.ts';
import { type RunningServer, serve } from '../src/server.ts';
import { startServer } from '../src/start.ts';
import { pgBossQueue } from '../src/storage-adapters.ts';
import { reportDrill } from './support/drill-report.ts';
import { captureLogs } from './support/log-capture.ts';
import { killLeftoverRuns, listeningUrl, runMain } from './support/run-main.ts';
import { TOKEN } from './support/test-server.ts';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

const secret = newSecret();
// Short waits, so that a drill sees several attempts: the schedule's shape, not DESIGN.md's hours.
const FAST_SCHEDULE = '100ms,200ms,400ms,800ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s';

interface Plant {
  readonly id: bigint;
  readonly name: string;
}

const bodyOf = (plant: Plant) => `{"id":${plant.id},"name":${JSON.stringify(plant.name)}}`;

/** A receiver that remembers which deliveries it answered with 2xx. */
async function startReceiver() {
  const receiver = await startTestReceiver([secret]);
  const answeredOk: string[] = [];
  let mode: 'ok' | 'hang' = 'ok';
  const hung: ServerResponse[] = [];
  receiver.answer = (_request: IncomingMessage, response: ServerResponse) => {
    const last = receiver.received.at(-1);
    if (mode === 'hang') {
      hung.push(response);
      return;
    }
    if (last) answeredOk.push(last.body);
    response.writeHead(204).end();
  };
  return {
    receiver,
    answeredOk,
    hang: () => {
      mode = 'hang';
    },
    answerAll: () => {
      mode = 'ok';
    },
  };
}

/**
 * What a receiver got, against the plants created: every plant arrived (answered 2xx) with exactly
 * its content and a valid signature, nothing else arrived, and every copy of one event carried the
 * same webhook-id. Returns the counts.
 */
function checkDeliveries(receiver: TestReceiver, answeredOk: readonly string[], created: readonly Plant[]) {
  const expected = new Set(created.map(bodyOf));
  const unsigned = receiver.received.filter((entry) => entry.verifiedBy.length === 0);
  expect(unsigned).toStrictEqual([]);
  const strangers = receiver.received.filter((entry) => !expected.has(entry.body));
  expect(strangers).toStrictEqual([]);
  const delivered = new Set(answeredOk);
  const missing = [...expected].filter((body) => !delivered.has(body));
  expect(missing).toStrictEqual([]);
  const idsByBody = new Map<string, Set<string>>();
  for (const entry of receiver.received) {
    const ids = idsByBody.get(entry.body) ?? new Set<string>();
    ids.add(entry.id);
    idsByBody.set(entry.body, ids);
  }
  expect([...idsByBody.values()].filter((ids) => ids.size !== 1)).toStrictEqual([]);
  return {
    plantsCreated: created.length,
    requestsReceived: receiver.received.length,
    answered2xx: answeredOk.length,
    duplicatesAnswered2xx: answeredOk.length - delivered.size,
    distinctWebhookIds: new Set(receiver.received.map((entry) => entry.id)).size,
  };
}

async function createPlants(
  url: string | (() => string),
  count: number,
  concurrency: number,
): Promise<Plant[]> {
  const created: Plant[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const plant = { id: randomPlantId(), name: `plant ${next}` };
      const base = typeof url === 'string' ? url : url();
      const response = await fetch(`${base}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: bodyOf(plant),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      created.push(plant);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return created;
}

const REDELIVER = fileURLToPath(new URL('../src/redeliver-dead-webhooks.ts', import.meta.url));

/** `pnpm webhooks:redeliver`, as the root package.json runs it, with this DATABASE_URL. */
async function runRedeliver(databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@plant-store/source', REDELIVER],
      { env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

// Generous bounds: these start real services (PGlite compiles its WebAssembly at each first open, a
// killed process's jobs expire first), and every package's tests run at once on two cores.
const DRILL_TIMEOUT = { timeout: 180_000 };

describe('the webhook on the other storages', DRILL_TIMEOUT, () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it.each([
    ['memory:', () => Promise.resolve('memory:')],
    [
      'pglite (embedded, in a data folder)',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'plant-store-webhook-'));
        stops.push(() => rm(dir, { recursive: true, force: true }));
        return `pglite:${dir}`;
      },
    ],
  ])('when a plant is created on %s, then it is delivered, signed', async (_name, databaseUrl) => {
    const { receiver, answeredOk } = await startReceiver();
    const config = loadConfig({
      PORT: '0',
      API_TOKENS: TOKEN,
      DATABASE_URL: await databaseUrl(),
      WEBHOOK_URLS: receiver.url,
      WEBHOOK_SECRET: secret,
      LOG_LEVEL: 'error',
    });
    const service = await startServer(config, { logDestination: captureLogs().destination });
    stops.unshift(
      () => service.stop(),
      () => receiver.close(),
    );
    const created = await createPlants(service.url, 20, 4);
    await eventually(() => new Set(answeredOk).size === created.length, 'every plant delivered', 30_000);
    await sleep(300);
    expect(checkDeliveries(receiver, answeredOk, created).duplicatesAnswered2xx).toBe(0);
    // The operator's command refuses what it cannot do safely, saying why; the folder written as a
    // file URL is the same folder, held by the service.
    const url = config.database.kind === 'pglite' ? `pglite:file://${config.database.dataDir}` : 'memory:';
    const refused = await runRedeliver(url);
    expect(refused.code).toBe(1);
    // The service runs in this process: the folder's lock names it.
    expect(refused.stderr).toMatch(
      config.database.kind === 'pglite'
        ? new RegExp(`is in use by process ${process.pid} on .*: stop the service, then run this again\n$`)
        : /memory: storage/,
    );
    if (config.database.kind === 'pglite') {
      await service.stop();
      await expect(runRedeliver(url)).resolves.toMatchObject({
        code: 0,
        stdout: '0 dead webhook deliveries queued again; the service delivers them once started\n',
      });
    }
  });
});

describe.skipIf(!server)(`webhook drills on PostgreSQL (${server?.source ?? 'none'})`, DRILL_TIMEOUT, () => {
  const connectionString = server?.connectionString ?? '';
  const servers: RunningServer[] = [];
  const receivers: TestReceiver[] = [];
  afterEach(async () => {
    killLeftoverRuns();
    for (const running of servers.splice(0)) await running.stop();
    for (const receiver of receivers.splice(0)) await receiver.close();
    // Each drill starts from an empty queue and outbox: what one left undelivered is not the next one's.
    const client = new pg.Client({ connectionString });
    await client.connect();
    await client.query('delete from plant_events');
    const schema = (await client.query<{ s: string }>('select current_schema() as s')).rows[0]?.s;
    await client.query(`delete from ${schema}_pgboss.job`).catch(() => {});
    await client.end();
  });

  function env(urls: readonly string[], extra: Record<string, string> = {}) {
    return {
      PORT: '0',
      API_TOKENS: TOKEN,
      DATABASE_URL: connectionString,
      WEBHOOK_URLS: urls.join(','),
      WEBHOOK_SECRET: secret,
      WEBHOOK_RETRY_SCHEDULE: FAST_SCHEDULE,
      // Long enough that no attempt times out while the whole test suite loads the machine: a
      // timed-out attempt whose request did reach the receiver is sent again (at least once), which
      // would break the drills' exactly-once counts (seen at 2000 ms: 344 requests for 300 events).
      WEBHOOK_TIMEOUT_MS: '15000',
      LOG_LEVEL: 'error',
      ...extra,
    };
  }

  async function start(urls: readonly string[]) {
    const running = await startServer(loadConfig(env(urls)), { logDestination: captureLogs().destination });
    servers.push(running);
    return running;
  }

  it('when the receiver is down under load, then once it is back every plant arrives, exactly, signed, once per event id', async () => {
    const { receiver, answeredOk } = await startReceiver();
    receivers.push(receiver);
    const service = await start([receiver.url]);
    await receiver.goDown();
    const created = await createPlants(service.url, 400, 16);
    await sleep(2_000);
    const failedWhileDown = await metric(service.url, 'plant_store_webhook_attempts_failed_total');
    const oldestAgeWhileDown = await metric(
      service.url,
      'plant_store_webhooks_oldest_undelivered_age_seconds',
    );
    expect(failedWhileDown).toBeGreaterThan(0);
    expect(oldestAgeWhileDown).toBeGreaterThan(1);
    await receiver.comeBack();
    const drainMs = await eventually(
      () => new Set(answeredOk).size === created.length,
      'every plant delivered',
    );
    // The queue completes a delivered job after the receiver's answer: the gauge empties a moment later.
    await eventually(
      async () => (await metric(service.url, 'plant_store_webhooks_oldest_undelivered_age_seconds')) === 0,
      'nothing left undelivered',
    );
    // Any duplicate would arrive within this.
    await sleep(1_500);
    const counts = checkDeliveries(receiver, answeredOk, created);
    expect(await metric(service.url, 'plant_store_webhooks_delivered_total')).toBe(counts.answered2xx);
    expect(await metric(service.url, 'plant_store_webhooks_dead')).toBe(0);
    expect(await metric(service.url, 'plant_store_webhooks_oldest_undelivered_age_seconds')).toBe(0);
    reportDrill('webhook-receiver-down', {
      ...counts,
      receiverDownMs: 'while 400 creates ran at c16, then 2000 ms',
      attemptsFailedWhileDown: failedWhileDown,
      oldestUndeliveredAgeWhileDownS: oldestAgeWhileDown,
      allDeliveredMsAfterBack: drainMs,
    });
  });

  it('when creates fail (400, 409, 503) or repeat, then no event is sent for them', async () => {
    const { receiver, answeredOk } = await startReceiver();
    receivers.push(receiver);
    // Its own storage, with a short statement timeout, so that a locked table answers 503 at once.
    const storage = await openPostgresPlantStorage({
      connectionString,
      statementTimeoutMillis: 300,
      events: true,
    });
    const config = loadConfig(env([receiver.url]));
    const opened = { storage, webhookQueue: pgBossQueue({ kind: 'postgres', connectionString }, storage) };
    const service = await serve(
      config,
      await composeService(config, opened, { logDestination: captureLogs().destination }),
    );
    servers.push(service);
    const post = (body: string) =>
      fetch(`${service.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
    const first = { id: randomPlantId(), name: 'first' };
    expect((await post(bodyOf(first))).status).toBe(200);
    expect((await post(bodyOf(first))).status).toBe(200); // a retry: nothing new
    expect((await post(`{"id":${first.id},"name":"other content"}`)).status).toBe(409);
    expect((await post('{"id":1.5,"name":"fraction"}')).status).toBe(400);
    expect((await post('{"id":12,"name":')).status).toBe(400);

    const refused = { id: randomPlantId(), name: 'while locked' };
    const locker = new pg.Client({ connectionString });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table plants in access exclusive mode');
      expect((await post(bodyOf(refused))).status).toBe(503);
      await locker.query('rollback');
    } finally {
      await locker.end();
    }
    const last = { id: randomPlantId(), name: 'last' };
    expect((await post(bodyOf(last))).status).toBe(200);
    await eventually(() => answeredOk.length >= 2, 'the two created plants delivered');
    await sleep(2_000);
    const counts = checkDeliveries(receiver, answeredOk, [first, last]);
    expect(counts.requestsReceived).toBe(2);
    expect(
      (await fetch(`${service.url}/plants/${refused.id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(404);
    reportDrill('webhook-failed-creates', {
      ...counts,
      requests: { '200 created': 2, '200 retry': 1, 409: 1, 400: 2, 503: 1 },
    });
  });

  it('when every attempt fails, then the deliveries are dead, counted, and webhooks:redeliver sends them again', async () => {
    const { receiver, answeredOk } = await startReceiver();
    receivers.push(receiver);
    const answer = receiver.answer;
    receiver.answer = (_request, response) => void response.writeHead(500).end();
    const service = await startServer(
      loadConfig(env([receiver.url], { WEBHOOK_RETRY_SCHEDULE: '50ms,50ms' })),
      {
        logDestination: captureLogs().destination,
      },
    );
    servers.push(service);
    const created = await createPlants(service.url, 30, 8);
    const deadMs = await eventually(() => receiver.received.length >= 90, 'three failed attempts of each');
    // The third failure is counted dead once its attempt's job is settled, a moment after it is sent.
    await eventually(
      async () => (await metric(service.url, 'plant_store_webhooks_dead')) === 30,
      'thirty dead deliveries',
    );

    receiver.answer = answer;
    const run = await runRedeliver(connectionString);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('30 dead webhook deliveries queued again; the running service delivers them\n');
    const redeliveredMs = await eventually(
      () => new Set(answeredOk).size === 30,
      'every dead delivery delivered',
    );
    const counts = checkDeliveries(receiver, answeredOk, created);
    expect(await metric(service.url, 'plant_store_webhooks_dead')).toBe(0);
    expect(await runRedeliver(connectionString)).toMatchObject({
      code: 0,
      stdout: '0 dead webhook deliveries queued again; the running service delivers them\n',
    });
    reportDrill('webhook-dead-and-redelivered', {
      ...counts,
      attemptsEach: 3,
      allDeadMs: deadMs,
      deliveredMsAfterRedeliver: redeliveredMs,
    });
  });

  it('when two replicas share one PostgreSQL, then every event is delivered, each exactly once', async () => {
    const { receiver, answeredOk } = await startReceiver();
    receivers.push(receiver);
    const replicas = [await start([receiver.url]), await start([receiver.url])];
    let turn = 0;
    const created = await createPlants(() => (replicas[turn++ % 2] as RunningServer).url, 300, 16);
    await eventually(() => new Set(answeredOk).size === created.length, 'every plant delivered');
    await sleep(1_500);
    const counts = checkDeliveries(receiver, answeredOk, created);
    // A failed attempt (a timeout) is the one way a copy may be sent, at least once: named if it happens.
    const failedByReplica = await Promise.all(
      replicas.map((replica) => metric(replica.url, 'plant_store_webhook_attempts_failed_total')),
    );
    expect(counts.requestsReceived, `attempts failed by replica: ${failedByReplica}`).toBe(created.length);
    expect(counts.duplicatesAnswered2xx).toBe(0);
    const byReplica = await Promise.all(
      replicas.map((replica) => metric(replica.url, 'plant_store_webhooks_delivered_total')),
    );
    expect((byReplica[0] ?? 0) + (byReplica[1] ?? 0)).toBe(created.length);
    reportDrill('webhook-two-replicas', {
      ...counts,
      deliveredByReplica: byReplica,
      attemptsFailedByReplica: failedByReplica,
    });
  });

  it('when the service is killed (SIGKILL) mid-delivery and restarted, then nothing is lost, and copies share the webhook-id', async () => {
    const { receiver, answeredOk, hang, answerAll } = await startReceiver();
    receivers.push(receiver);
    // Attempts time out in 1.5 s, so a job held by the killed process expires and runs again in ~7 s.
    const childEnv = {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      ...env([receiver.url], { WEBHOOK_TIMEOUT_MS: '1500', LOG_LEVEL: 'info' }),
    };
    const first = runMain(childEnv);
    const firstUrl = await listeningUrl(first);
    hang();
    const created = await createPlants(firstUrl, 200, 16);
    // A batch of attempts is held open by the receiver when the process dies.
    await eventually(() => receiver.received.length >= 10, 'deliveries in flight');
    const inFlightAtKill = receiver.received.length;
    first.child.kill('SIGKILL');
    await first.exited;
    answerAll();

    const second = runMain(childEnv);
    await listeningUrl(second);
    const recoveredMs = await eventually(
      () => new Set(answeredOk).size === created.length,
      'every plant delivered after the restart',
      150_000,
    );
    await sleep(1_500);
    const counts = checkDeliveries(receiver, answeredOk, created);
    second.child.kill('SIGTERM');
    await second.exited;
    reportDrill('webhook-sigkill', {
      ...counts,
      requestsHeldWhenKilled: inFlightAtKill,
      allDeliveredMsAfterRestart: recoveredMs,
    });
  });
});
