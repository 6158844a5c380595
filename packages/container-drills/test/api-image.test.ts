// The api's image, drilled: built from docker/Dockerfile, run on its embedded default storage with a
// volume, read-only, stopped under load. Each drill starts its own containers and removes them.

import { randomPlantId } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  API_IMAGE,
  buildApiImage,
  DRILL_LABEL,
  docker,
  inspect,
  publishedUrl,
  removeAll,
  runApi,
  uniqueName,
  waitHealthy,
} from '../src/docker.ts';
import { drillsCanRun } from '../src/engine.ts';
import { recordFigure } from '../src/figures.ts';
import { NODE_BASE } from '../src/images.ts';
import { countDurable, createPlant, createUnderLoad, sum } from '../src/load.ts';

const TOKEN = 'drill-token-0123456789abcdef';
const containers: string[] = [];
const volumes: string[] = [];
// The drills' containers talk only to the host, on a network of this run's own.
const network = uniqueName('net');

const runs = await drillsCanRun('The api image drills', { images: [NODE_BASE] });

describe.skipIf(!runs)('the api image', () => {
  beforeAll(async () => {
    await docker(['network', 'create', '--label', DRILL_LABEL, network]);
    const started = performance.now();
    await buildApiImage();
    recordFigure(
      'api image build (s, BuildKit cache as found)',
      ((performance.now() - started) / 1000).toFixed(1),
    );
    const bytes = Number(await docker(['image', 'inspect', '--format', '{{.Size}}', API_IMAGE]));
    recordFigure('api image size (MB)', (bytes / 1e6).toFixed(0));
  });

  afterAll(async () => {
    await removeAll(containers, volumes);
    await docker(['network', 'rm', network]).catch(() => {});
  });

  /** The image's own HEALTHCHECK timing with `ownHealthTiming`; else checked every second, to wait less. */
  async function start(args: readonly string[], ownHealthTiming = false) {
    const name = uniqueName('api');
    containers.push(name);
    const quick = ownHealthTiming ? [] : ['--health-interval', '1s', '--health-start-period', '0s'];
    return runApi(API_IMAGE, {
      name,
      args: ['--network', network, '--env', `API_TOKENS=${TOKEN}`, ...quick, ...args],
    });
  }

  function newVolume(): string {
    const volume = uniqueName('data');
    volumes.push(volume);
    return volume;
  }

  test('runs as the non-root user node (uid 1000), as its configuration says', async () => {
    expect(await docker(['image', 'inspect', '--format', '{{.Config.User}}', API_IMAGE])).toBe('node');
    expect(
      await docker([
        'run',
        '--rm',
        '--label',
        DRILL_LABEL,
        '--network',
        'none',
        '--entrypoint',
        'id',
        API_IMAGE,
        '-u',
      ]),
    ).toBe('1000');
  });

  test('holds the production dependencies only: koa, no vitest, typescript or testcontainers', async () => {
    const installed = (
      await docker([
        'run',
        '--rm',
        '--label',
        DRILL_LABEL,
        '--network',
        'none',
        '--entrypoint',
        'ls',
        API_IMAGE,
        '/app/node_modules/.pnpm',
      ])
    ).split('\n');
    expect(installed.some((entry) => entry.startsWith('koa@'))).toBe(true);
    const dev = installed.filter((entry) =>
      /^(vitest|typescript|testcontainers|@testcontainers\+[^@]+|@biomejs\+[^@]+|turbo|vite)@/.test(entry),
    );
    expect(dev).toEqual([]);
  });

  test('turns healthy, and keeps a plant on its volume across a restart of the container', async () => {
    const volume = newVolume();
    const startedAt = performance.now();
    const api = await start(['--volume', `${volume}:/app/data`], true);
    let answeredMs = 0;
    for (;;) {
      const ok = await fetch(`${api.url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    answeredMs = performance.now() - startedAt;
    await waitHealthy(api.name);
    recordFigure('api container: run to first /healthz answer (ms)', answeredMs.toFixed(0));
    recordFigure(
      'api container: run to HEALTHCHECK healthy (ms)',
      (performance.now() - startedAt).toFixed(0),
    );

    const id = randomPlantId();
    expect(await createPlant(api.url, TOKEN, id, 'Monstera')).toBe(200);
    await docker(['restart', api.name]);
    await waitHealthy(api.name);
    const url = await publishedUrl(api.name); // A restart may publish on another port.
    expect(await createPlant(url, TOKEN, id, 'Monstera')).toBe(200); // the same again: a retry
    expect(await createPlant(url, TOKEN, id, 'Ficus')).toBe(409); // the stored plant is the one sent before
  });

  test('runs with a read-only root filesystem (a volume for its data, a tmpfs for /tmp)', async () => {
    const api = await start(['--read-only', '--tmpfs', '/tmp', '--volume', `${newVolume()}:/app/data`]);
    await waitHealthy(api.name);
    const id = randomPlantId();
    expect(await createPlant(api.url, TOKEN, id, 'Pilea')).toBe(200);
    expect(await createPlant(api.url, TOKEN, id, 'Other')).toBe(409);
    expect(await inspect(api.name, '{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
  });

  test('`docker stop` under load drains: every 200 is durable, and the exit code is 0', async () => {
    const volume = newVolume();
    const api = await start(['--volume', `${volume}:/app/data`]);
    await waitHealthy(api.name);
    let stopDone!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stopDone = resolve;
    });
    const load = createUnderLoad([api.url], TOKEN, 8, stopped);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stopStarted = performance.now();
    await docker(['stop', '--time', '20', api.name]); // SIGTERM; SIGKILL only after 20 s
    const stopSeconds = (performance.now() - stopStarted) / 1000;
    stopDone();
    const result = await load;
    expect(await inspect(api.name, '{{.State.ExitCode}}')).toBe('0');
    expect(await inspect(api.name, '{{.State.OOMKilled}}')).toBe('false');
    expect(result.created.size).toBeGreaterThan(0);

    await docker(['start', api.name]);
    await waitHealthy(api.name);
    const durable = await countDurable(await publishedUrl(api.name), TOKEN, result.created);
    recordFigure('docker stop under load: creates answered 200', result.created.size);
    recordFigure(
      'docker stop under load: requests without a 200 (refused after the stop)',
      sum(result.failures),
    );
    recordFigure('docker stop under load: SIGTERM to exit, drain included (s)', stopSeconds.toFixed(1));
    expect(durable).toBe(result.created.size);
    // Any answer other than 200 must be the server going away, never an error it answered.
    expect(
      [...result.failures.keys()].filter((status) => status !== 'network error' && status !== '503'),
    ).toEqual([]);
  });
});
