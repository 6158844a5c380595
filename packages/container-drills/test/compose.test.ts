// docker/compose.yaml brought up with Debian's docker-compose 1.29: PostgreSQL healthy before the api,
// migrations at start, a create through the published port, and the plant kept across down and up.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, randomPlantId, warnDidNotRun } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  API_IMAGE,
  buildApiImage,
  COMPOSE,
  composeCommand,
  docker,
  imagePresent,
  uniqueName,
  waitHealthy,
} from '../src/docker.ts';
import { ENGINE, warnIfNoEngine } from '../src/engine.ts';
import { createPlant } from '../src/load.ts';

const TOKEN = 'drill-compose-token-0123456789';
const OFFICIAL_POSTGRES = 'postgres:17-alpine';
const STANDIN_POSTGRES = 'localhost/plant-store-ci/postgres:15';

warnIfNoEngine('The compose drill');
const composeHere = existsSync(COMPOSE);
if (ENGINE && !composeHere) {
  warnDidNotRun('The compose drill', `${COMPOSE} is not installed`, 'run `pnpm docker:prepare`');
}

describe.skipIf(!ENGINE || !composeHere)('docker/compose.yaml with docker-compose 1.29', () => {
  const project = uniqueName('compose');
  const secrets = mkdtempSync(join(tmpdir(), 'plant-store-compose-'));
  let env: NodeJS.ProcessEnv = {};

  const compose = composeCommand(project, 'docker/compose.yaml', () => env);

  beforeAll(async () => {
    await buildApiImage();
    writeFileSync(join(secrets, 'api_tokens'), `# the drill's token\n${TOKEN}\n`, { mode: 0o644 });
    env = {
      POSTGRES_IMAGE: (await imagePresent(OFFICIAL_POSTGRES)) ? OFFICIAL_POSTGRES : STANDIN_POSTGRES,
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
