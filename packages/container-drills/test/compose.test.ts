// docker/compose.yaml brought up with the compose this machine has (Compose v2 or docker-compose 1.29):
// PostgreSQL healthy before the api, migrations at start, a create through the published port, and the
// plant kept across down and up. And every compose file valid for that compose.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, randomPlantId, warnDidNotRun } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { composeCommand, composeName } from '../src/compose.ts';
import { API_IMAGE, buildApiImage, docker, REPO_ROOT, uniqueName, waitHealthy } from '../src/docker.ts';
import { COMPOSE, drillsCanRun } from '../src/engine.ts';
import { recordFigure } from '../src/figures.ts';
import { imageFor, NODE_BASE, POSTGRES } from '../src/images.ts';
import { createPlant } from '../src/load.ts';

const TOKEN = 'drill-compose-token-0123456789';

const runs = await drillsCanRun('The compose drill', { compose: true, images: [NODE_BASE, POSTGRES] });

if (COMPOSE === undefined) {
  warnDidNotRun(
    'The check of the compose files',
    'neither `docker compose` (Compose v2) nor `docker-compose` (1.29) answers `version`',
  );
}

describe.skipIf(COMPOSE === undefined)('the compose files', () => {
  const files = readdirSync(join(REPO_ROOT, 'docker')).filter((name) => /^compose.*\.yaml$/.test(name));

  test.each(files)('docker/%s is valid for the compose here, with no warning', (file) => {
    const tool = COMPOSE;
    if (tool === undefined) throw new Error('no compose');
    // What 1.29 lacks (a top-level name:, start_interval, develop:) fails its validation; what v2
    // finds obsolete (a version: key) it warns about.
    const checked = spawnSync(tool.command, [...tool.args, '--file', `docker/${file}`, 'config', '--quiet'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect({ status: checked.status, stderr: checked.stderr.trim() }, composeName(tool)).toEqual({
      status: 0,
      stderr: '',
    });
  });
});

describe.skipIf(!runs)('docker/compose.yaml with the compose found here', () => {
  const project = uniqueName('compose');
  const secrets = mkdtempSync(join(tmpdir(), 'plant-store-compose-'));
  let env: NodeJS.ProcessEnv = {};

  const compose = composeCommand(COMPOSE, project, 'docker/compose.yaml', () => env);

  beforeAll(async () => {
    recordFigure('compose: the compose the drills ran', COMPOSE?.version ?? 'none');
    await buildApiImage();
    writeFileSync(join(secrets, 'api_tokens'), `# the drill's token\n${TOKEN}\n`, { mode: 0o644 });
    env = {
      POSTGRES_IMAGE: await imageFor(POSTGRES),
      API_IMAGE,
      API_PORT: String(await freePort()),
      API_TOKENS_SECRET: join(secrets, 'api_tokens'),
    };
  });

  afterAll(async () => {
    await compose('down', '--volumes', '--remove-orphans').catch(() => {});
    rmSync(secrets, { recursive: true, force: true });
  });

  test('starts the api after PostgreSQL is healthy, creates through the published port, and keeps the plant across down and up', async () => {
    await compose('up', '--detach', '--no-build');
    const api = await compose('ps', '--quiet', 'api');
    const postgres = await compose('ps', '--quiet', 'postgres');
    await waitHealthy(api);
    // depends_on service_healthy: the api's container started only once PostgreSQL's check passed.
    expect(await docker(['inspect', '--format', '{{.State.Health.Status}}', postgres])).toBe('healthy');
    const url = `http://127.0.0.1:${env.API_PORT}`;
    const id = randomPlantId();
    expect(await createPlant(url, TOKEN, id, 'Calathea')).toBe(200); // the migrations ran at start

    await compose('down'); // keeps the named volume
    expect(await compose('ps', '--quiet')).toBe('');
    await compose('up', '--detach', '--no-build');
    await waitHealthy(await compose('ps', '--quiet', 'api'));
    expect(await createPlant(url, TOKEN, id, 'Other')).toBe(409);
    expect(await createPlant(url, TOKEN, id, 'Calathea')).toBe(200);
  });
});
