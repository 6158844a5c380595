// Drill 2: the process is stopped while a bounded load runs: SIGTERM (graceful) and SIGKILL
// (nothing runs after it), on a PostgreSQL server and on the embedded default (PGlite in a folder).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlantStorage } from '@plant-store/domain';
import { openPglitePlantStorage, openPostgresPlantStorage } from '@plant-store/storage-postgres';
import { BUSY_MACHINE_SLACK_MS, provideTestPostgres } from '@plant-store/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reportDrill } from '../support/drill-report.ts';
import {
  type Attempt,
  checkDurability,
  countByStatus,
  ms,
  runLoad,
  type StoredPlant,
} from '../support/load.ts';
import { killLeftoverRuns, listeningUrl, type Run, runMain } from '../support/run-main.ts';
import { TOKEN } from '../support/test-server.ts';

const WORKERS = 8;
const SHUTDOWN_TIMEOUT_MS = 5_000;
// DESIGN.md: SIGTERM ends the process within SHUTDOWN_TIMEOUT_MS plus a second.
const PROMISED_EXIT_MS = SHUTDOWN_TIMEOUT_MS + 1_000;
// How a client sees a server that no longer takes connections, or that closed an idle one.
const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

const server = await provideTestPostgres();
const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-stop-'));
afterAll(async () => {
  await server?.cleanup();
  await rm(tempDir, { recursive: true, force: true });
});
afterEach(killLeftoverRuns);

interface Target {
  readonly label: string;
  readonly databaseUrl: string;
  /** Opens the store in this process, to read what the service left there. */
  open(): Promise<PlantStorage>;
}

let pgliteDirs = 0;
function pgliteTarget(): Target {
  const dataDir = join(tempDir, `data-${++pgliteDirs}`);
  return {
    label: 'pglite',
    databaseUrl: `pglite:${dataDir}`,
    open: () => openPglitePlantStorage({ dataDir }),
  };
}

function postgresTarget(): Target {
  const connectionString = server?.connectionString ?? '';
  return {
    label: 'postgres',
    databaseUrl: connectionString,
    open: () => openPostgresPlantStorage({ connectionString }),
  };
}

function start(target: Target): Run {
  return runMain({
    PORT: '0',
    DATABASE_URL: target.databaseUrl,
    API_TOKENS: TOKEN,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
}

async function readBack(target: Target, ids: readonly bigint[]): Promise<Map<bigint, StoredPlant>> {
  const storage = await target.open();
  const found = new Map<bigint, StoredPlant>();
  try {
    for (let i = 0; i < ids.length; i += 50) {
      const plants = await Promise.all(ids.slice(i, i + 50).map((id) => storage.plants.findById(id)));
      for (const plant of plants) if (plant) found.set(plant.id, { name: plant.name, tag: plant.tag });
    }
  } finally {
    await storage.close();
  }
  return found;
}

/** Runs the load, sends `signal` once some plants are stored, and goes on until shortly after exit. */
async function loadThenSignal(target: Target, signal: 'SIGTERM' | 'SIGKILL') {
  const run = start(target);
  const url = await listeningUrl(run);
  let done = false;
  const load = runLoad({ url, workers: WORKERS, done: () => done, tag: `${signal} drill` });
  await sleep(1_500);
  const signalAt = performance.now();
  run.child.kill(signal);
  const code = await run.exited;
  const exitedAt = performance.now();
  // New clients keep coming for a moment after the exit: they must be refused, not hang.
  await sleep(300);
  done = true;
  const attempts = await load;
  return { run, url, code, signalAt, exitedAt, attempts };
}

function classify(attempts: readonly Attempt[], signalAt: number) {
  const before = attempts.filter((a) => a.endedAt < signalAt);
  const inFlight = attempts.filter((a) => a.startedAt < signalAt && a.endedAt >= signalAt);
  const after = attempts.filter((a) => a.startedAt >= signalAt);
  return { before, inFlight, after };
}

/** Restarts the service on the same storage, checks it is ready, and stops it (a restart after a kill). */
async function restartAndStop(target: Target): Promise<number> {
  const startedAt = performance.now();
  const again = start(target);
  const url = await listeningUrl(again);
  const ready = await fetch(`${url}/readyz`);
  expect(ready.status).toBe(200);
  const readyMs = performance.now() - startedAt;
  again.child.kill('SIGTERM');
  expect(await again.exited).toBe(0);
  return readyMs;
}

const targets: readonly [string, () => Target, boolean][] = [
  ['a PostgreSQL server', postgresTarget, server !== undefined],
  ['the embedded default (PGlite in a folder)', pgliteTarget, true],
];

describe('drill: the process is stopped during load', () => {
  for (const [label, makeTarget, available] of targets) {
    describe.skipIf(!available)(`on ${label}`, () => {
      it('when SIGTERM arrives, then requests in flight complete, new ones are refused cleanly, it exits 0 within SHUTDOWN_TIMEOUT_MS, and every 200 is stored', {
        timeout: 120_000,
      }, async () => {
        const target = makeTarget();
        const { run, code, signalAt, exitedAt, attempts } = await loadThenSignal(target, 'SIGTERM');
        const { before, inFlight, after } = classify(attempts, signalAt);
        const durability = await checkDurability(attempts, (ids) => readBack(target, ids));
        const figures = {
          storage: target.label,
          requests: attempts.length,
          byStatus: countByStatus(attempts),
          answeredBeforeSignal: countByStatus(before),
          inFlightAtSignal: countByStatus(inFlight),
          sentAfterSignal: countByStatus(after),
          exitCode: code,
          exitAfterSignalMs: ms(exitedAt - signalAt),
          shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
          durability: {
            ...durability,
            okLost: durability.okLost.length,
            halfWritten: durability.halfWritten.length,
          },
        };
        reportDrill(`stop-sigterm-${target.label}`, figures);

        expect(code).toBe(0);
        expect(
          exitedAt - signalAt,
          'ended within SHUTDOWN_TIMEOUT_MS plus a second, give or take a busy machine',
        ).toBeLessThan(PROMISED_EXIT_MS + BUSY_MACHINE_SLACK_MS);
        expect(run.stdout()).toContain('"msg":"stopped"');
        // Every request answered before or during the stop was a 200: nothing in flight was cut off.
        expect(countByStatus([...before, ...inFlight])).toEqual({ 200: before.length + inFlight.length });
        // Requests after the signal got a 200 (on a connection already open) or a refused connection.
        for (const attempt of after) {
          if (attempt.status !== 200) expect(REFUSED).toContain(attempt.error);
        }
        expect(after.some((a) => a.status === 'no-response')).toBe(true);
        expect(durability.okLost).toEqual([]);
        expect(durability.halfWritten).toEqual([]);
        expect(durability.okStored).toBeGreaterThan(0);
      });

      it('when SIGKILL arrives instead, then after a restart every plant that got a 200 is still there, and none is half-written', {
        timeout: 120_000,
      }, async () => {
        const target = makeTarget();
        const { code, signalAt, exitedAt, attempts } = await loadThenSignal(target, 'SIGKILL');
        const restartReadyMs = await restartAndStop(target);
        const durability = await checkDurability(attempts, (ids) => readBack(target, ids));
        const { inFlight } = classify(attempts, signalAt);
        reportDrill(`stop-sigkill-${target.label}`, {
          storage: target.label,
          requests: attempts.length,
          byStatus: countByStatus(attempts),
          inFlightAtSignal: countByStatus(inFlight),
          exitAfterSignalMs: ms(exitedAt - signalAt),
          restartReadyMs: ms(restartReadyMs),
          durability: {
            ...durability,
            okLost: durability.okLost.length,
            halfWritten: durability.halfWritten.length,
          },
        });

        expect(code).toBeNull();
        expect(durability.okLost).toEqual([]);
        expect(durability.halfWritten).toEqual([]);
        expect(durability.okStored).toBe(attempts.filter((a) => a.status === 200).length);
        expect(durability.okStored).toBeGreaterThan(0);
      });
    });
  }
});
