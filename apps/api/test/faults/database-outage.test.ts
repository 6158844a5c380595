// Drill 1: the database goes away under load, and comes back. Runs against a PostgreSQL cluster
// of its own (support/throwaway-postgres.ts), never the shared server.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlantStorage } from '@plant-store/domain';
import { openPostgresPlantStorage } from '@plant-store/storage-postgres';
import { BUSY_MACHINE_SLACK_MS, warnDidNotRun } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportDrill } from '../support/drill-report.ts';
import {
  type Attempt,
  checkDurability,
  countByStatus,
  ms,
  percentile,
  runLoad,
  type StoredPlant,
} from '../support/load.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  whyNoThrowawayPostgres,
} from '../support/throwaway-postgres.ts';

const WORKERS = 8;
// Shorter than the defaults (5 s to connect, 10 s per statement, 15 s to read an answer), so that
// a frozen database shows the bounds within seconds: connect 1 s, statement 1 s, read 6 s.
const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_000;
const READ_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 5_000;
// The promise, "does not hang": a request waits for a connection at most CONNECT_TIMEOUT_MS and for
// an answer of the database at most READ_TIMEOUT_MS, then it is answered (503). A busy machine may
// add its slack; a hang has no end.
const PROMISED_ANSWER_MS = CONNECT_TIMEOUT_MS + READ_TIMEOUT_MS;

const notRun = whyNoThrowawayPostgres();
if (notRun !== undefined) warnDidNotRun('the database outage drill (faults/database-outage.test.ts)', notRun);

interface ReadinessSample {
  readonly at: number;
  readonly endedAt: number;
  readonly status: number | 'no-response';
}

/** GET /readyz every 100 ms until done(). */
async function pollReadiness(url: string, done: () => boolean): Promise<ReadinessSample[]> {
  const samples: ReadinessSample[] = [];
  while (!done()) {
    const at = performance.now();
    const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(30_000) }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 'no-response' as const,
    );
    samples.push({ at, endedAt: performance.now(), status });
    await sleep(100);
  }
  return samples;
}

/** Reads each id through a storage of its own (a pool apart from the server's). */
async function readBack(connectionString: string, ids: readonly bigint[]): Promise<Map<bigint, StoredPlant>> {
  const reader = await openPostgresPlantStorage({ connectionString });
  const found = new Map<bigint, StoredPlant>();
  try {
    for (let i = 0; i < ids.length; i += 50) {
      const batch = ids.slice(i, i + 50);
      const plants = await Promise.all(batch.map((id) => reader.plants.findById(id)));
      for (const plant of plants) if (plant) found.set(plant.id, { name: plant.name, tag: plant.tag });
    }
  } finally {
    await reader.close();
  }
  return found;
}

/** The first attempt started after `since` that got a 200, and when it was answered. */
function firstSuccessAfter(attempts: readonly Attempt[], since: number): number | undefined {
  const answered = attempts
    .filter((a) => a.status === 200 && a.startedAt >= since)
    .map((a) => a.endedAt)
    .sort((a, b) => a - b);
  return answered[0];
}

describe.skipIf(notRun !== undefined)('drill: the database goes away under load', () => {
  let cluster: ThrowawayPostgres;
  let storage: PlantStorage;
  let server: TestServer;

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    storage = await openPostgresPlantStorage({
      connectionString: cluster.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statementTimeoutMillis: STATEMENT_TIMEOUT_MS,
    });
    server = await startTestServer(storage, { LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  /**
   * Load for `before` ms, then `outage()`, `downMs` of outage, then `recover()`, and load until a
   * while after the first success; returns what the clients saw and when.
   */
  async function drill(
    outage: () => Promise<void> | void,
    downMs: number,
    recover: () => Promise<void> | void,
  ) {
    let done = false;
    const load = runLoad({ url: server.url, workers: WORKERS, done: () => done, tag: 'outage drill' });
    const readiness = pollReadiness(server.url, () => done);
    await sleep(1_500);
    const downAt = performance.now();
    await outage();
    await sleep(downMs);
    const recoverAt = performance.now();
    await recover();
    const backAt = performance.now();
    // Load goes on until the service has served for a while again, or a generous bound passes.
    const deadline = backAt + 60_000;
    while (performance.now() < deadline) {
      await sleep(250);
      const ready = await fetch(`${server.url}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (ready === 200) break;
    }
    await sleep(1_500);
    done = true;
    return { attempts: await load, samples: await readiness, downAt, recoverAt, backAt };
  }

  function summarise(
    name: string,
    run: Awaited<ReturnType<typeof drill>>,
    durability: Awaited<ReturnType<typeof checkDurability>>,
  ) {
    const { attempts, samples, downAt, backAt } = run;
    const during = attempts.filter((a) => a.startedAt >= downAt && a.endedAt <= run.recoverAt);
    const firstOk = firstSuccessAfter(attempts, backAt);
    const firstReady = samples.find((s) => s.at >= backAt && s.status === 200)?.at;
    const latencies = attempts.map((a) => a.endedAt - a.startedAt);
    const unavailable = attempts.filter((a) => a.status === 503);
    const figures = {
      requests: attempts.length,
      byStatus: countByStatus(attempts),
      duringOutage: countByStatus(during),
      outageMs: ms(run.recoverAt - downAt),
      restartMs: ms(backAt - run.recoverAt),
      recoveryAfterBackMs: firstOk === undefined ? null : ms(firstOk - backAt),
      readyAgainAfterBackMs: firstReady === undefined ? null : ms(firstReady - backAt),
      readyzStatuses: countByStatus(samples.map((s) => ({ status: s.status }) as Attempt)),
      latencyMs: {
        p50: ms(percentile(latencies, 50)),
        p99: ms(percentile(latencies, 99)),
        max: ms(Math.max(...latencies)),
      },
      latency503Ms: {
        p50: ms(
          percentile(
            unavailable.map((a) => a.endedAt - a.startedAt),
            50,
          ),
        ),
        max: ms(Math.max(0, ...unavailable.map((a) => a.endedAt - a.startedAt))),
      },
      durability: {
        ...durability,
        okLost: durability.okLost.length,
        halfWritten: durability.halfWritten.length,
      },
    };
    reportDrill(name, figures);
    return { figures, firstOk, firstReady };
  }

  function expectNothingLostOrBroken(
    run: Awaited<ReturnType<typeof drill>>,
    durability: Awaited<ReturnType<typeof checkDurability>>,
  ): void {
    const { attempts } = run;
    // Only 200 and 503 (with Retry-After), and an answer to every request, within the bound.
    expect(countByStatus(attempts.filter((a) => a.status !== 200 && a.status !== 503))).toEqual({});
    for (const a of attempts.filter((a) => a.status === 503)) expect(a.retryAfter).toBe('5');
    expect(
      Math.max(...attempts.map((a) => a.endedAt - a.startedAt)),
      'every request answered within the connect and read timeouts, give or take a busy machine',
    ).toBeLessThan(PROMISED_ANSWER_MS + BUSY_MACHINE_SLACK_MS);
    expect(attempts.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    // Every 200 is in the database exactly; no error left a partial plant.
    expect(durability.okLost).toEqual([]);
    expect(durability.halfWritten).toEqual([]);
    expect(durability.okStored).toBe(attempts.filter((a) => a.status === 200).length);
  }

  it('when PostgreSQL is shut down (immediate: a crash) under load and started again, then requests answer 503 with Retry-After, /readyz turns 503, and the service recovers by itself losing no 200', {
    timeout: 180_000,
  }, async () => {
    const run = await drill(
      () => cluster.stop('immediate'),
      3_000,
      () => cluster.start(),
    );
    const durability = await checkDurability(run.attempts, (ids) => readBack(cluster.url, ids));
    const { firstOk, firstReady } = summarise('database-outage-stop', run, durability);

    expectNothingLostOrBroken(run, durability);
    // A readiness check answered while the database was out said 503.
    expect(run.samples.some((s) => s.endedAt > run.downAt && s.at < run.recoverAt && s.status === 503)).toBe(
      true,
    );
    expect(firstOk).toBeDefined();
    expect(firstReady).toBeDefined();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('when PostgreSQL hangs (every process stopped with SIGSTOP) under load and then resumes, then no request hangs past the timeouts: they answer 503, /readyz turns 503, and the service recovers by itself losing no 200', {
    timeout: 180_000,
  }, async () => {
    // Frozen longer than the read timeout, so that requests caught on open connections must time out.
    const run = await drill(
      () => cluster.freeze(),
      READ_TIMEOUT_MS + 2_000,
      () => cluster.thaw(),
    );
    const durability = await checkDurability(run.attempts, (ids) => readBack(cluster.url, ids));
    const { firstOk, firstReady } = summarise('database-outage-freeze', run, durability);

    expectNothingLostOrBroken(run, durability);
    // A readiness check answered while the database was out said 503.
    expect(run.samples.some((s) => s.endedAt > run.downAt && s.at < run.recoverAt && s.status === 503)).toBe(
      true,
    );
    expect(firstOk).toBeDefined();
    expect(firstReady).toBeDefined();
  });
});
