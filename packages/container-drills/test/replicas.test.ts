// docker/compose.replicas.yaml: three api replicas on one PostgreSQL behind HAProxy, drilled with counts:
// racing creates of one id over the replicas, a replica killed under load, a rolling restart under load.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, randomPlantId } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { composeCommand } from '../src/compose.ts';
import { API_IMAGE, buildApiImage, docker, uniqueName, waitHealthy } from '../src/docker.ts';
import { COMPOSE, drillsCanRun } from '../src/engine.ts';
import { recordFigure } from '../src/figures.ts';
import { HAPROXY, imageFor, NODE_BASE, POSTGRES } from '../src/images.ts';
import { countDurable, createUnderLoad, type LoadResult, sum } from '../src/load.ts';

const TOKEN = 'drill-replicas-token-0123456789';
const REPLICAS = ['api1', 'api2', 'api3'] as const;

const runs = await drillsCanRun('The replicas drills', {
  compose: true,
  images: [NODE_BASE, POSTGRES, HAPROXY],
});

describe.skipIf(!runs)('three replicas behind HAProxy (docker/compose.replicas.yaml)', () => {
  const project = uniqueName('replicas');
  const secrets = mkdtempSync(join(tmpdir(), 'plant-store-replicas-'));
  let env: NodeJS.ProcessEnv = {};
  let url = '';

  const compose = composeCommand(COMPOSE, project, 'docker/compose.replicas.yaml', () => env);

  /** Waits until HAProxy sends a request to `replica`: it is back in the rotation. */
  async function inRotation(replica: string): Promise<void> {
    for (;;) {
      const served = await fetch(`${url}/healthz`).then(
        (response) => response.headers.get('x-replica'),
        () => null,
      );
      if (served === replica) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function replicaReady(replica: string): Promise<void> {
    await waitHealthy(await compose('ps', '--quiet', replica));
    await inRotation(replica);
  }

  /** A load of 8 workers through the load balancer while `disturb` runs, and 1 s on each side of it. */
  async function underLoad(disturb: () => Promise<void>): Promise<LoadResult> {
    let done!: () => void;
    const stop = new Promise<void>((resolve) => {
      done = resolve;
    });
    const load = createUnderLoad([url], TOKEN, 8, stop);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await disturb();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    done();
    return load;
  }

  beforeAll(async () => {
    await buildApiImage();
    writeFileSync(join(secrets, 'api_tokens'), `${TOKEN}\n`, { mode: 0o644 });
    env = {
      POSTGRES_IMAGE: await imageFor(POSTGRES),
      HAPROXY_IMAGE: await imageFor(HAPROXY),
      API_IMAGE,
      API_PORT: String(await freePort()),
      API_TOKENS_SECRET: join(secrets, 'api_tokens'),
    };
    url = `http://127.0.0.1:${env.API_PORT}`;
    await compose('up', '--detach', '--no-build');
    for (const replica of REPLICAS) await replicaReady(replica);
  });

  afterAll(async () => {
    await compose('down', '--volumes', '--remove-orphans').catch(() => {});
    rmSync(secrets, { recursive: true, force: true });
  });

  test('concurrent creates of one id, spread over the replicas: exactly one content wins', async () => {
    const id = randomPlantId();
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const response = await fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: `{"id": ${id}, "name": "racer-${index}"}`,
        });
        return { index, status: response.status, replica: response.headers.get('x-replica') };
      }),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(29);
    expect(new Set(answers.map((answer) => answer.replica))).toEqual(new Set(REPLICAS));
    recordFigure(
      'replicas: 30 racing creates of one id, served by',
      REPLICAS.map(
        (replica) => `${replica} ${answers.filter((answer) => answer.replica === replica).length}`,
      ).join(', '),
    );
    // What is stored is the winner's content: it is a retry (200); any other is a conflict.
    const winner = winners[0]?.index ?? -1;
    const again = (name: string) =>
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"id": ${id}, "name": "${name}"}`,
      }).then((response) => response.status);
    expect(await again(`racer-${winner}`)).toBe(200);
    expect(await again(`racer-${(winner + 1) % 30}`)).toBe(409);
  });

  test('`docker kill` of one replica under load: no 200 lost; the failed requests counted', async () => {
    const victim = await compose('ps', '--quiet', 'api2');
    const result = await underLoad(async () => {
      await docker(['kill', victim]);
    });
    recordFigure('replicas, api2 killed under load: creates answered 200', result.created.size);
    recordFigure('replicas, api2 killed under load: requests failed', sum(result.failures));
    recordFigure('replicas, api2 killed under load: failures over (ms)', result.failureWindowMs.toFixed(0));
    expect(await countDurable(url, TOKEN, result.created)).toBe(result.created.size);
    await compose('start', 'api2');
    await replicaReady('api2');
  });

  test('a rolling restart with SIGTERM under load: no request fails, no 200 is lost', async () => {
    const stopSeconds: string[] = [];
    const result = await underLoad(async () => {
      for (const replica of REPLICAS) {
        const started = performance.now();
        // SIGTERM: /readyz 503 at once, serving on for SHUTDOWN_GRACE_MS (3 s), then the drain.
        await compose('restart', '--timeout', '15', replica);
        stopSeconds.push(((performance.now() - started) / 1000).toFixed(1));
        await replicaReady(replica);
      }
    });
    recordFigure(
      'replicas, rolling restart under load: each restart, SIGTERM to started again (s)',
      stopSeconds.join(', '),
    );
    recordFigure('replicas, rolling restart under load: creates answered 200', result.created.size);
    recordFigure('replicas, rolling restart under load: requests failed', sum(result.failures));
    expect(Object.fromEntries(result.failures)).toEqual({});
    expect(await countDurable(url, TOKEN, result.created)).toBe(result.created.size);
  });
});
