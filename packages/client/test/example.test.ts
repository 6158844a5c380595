// docs/examples/client.mts, run as docs/api.md says (`pnpm exec node docs/examples/client.mts`: the
// workspace's Node, which strips its types), against the real service started in memory.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig, type RunningServer, startServer } from '@plant-store/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const TOKEN = 'client-example-token';
let server: RunningServer;

beforeAll(async () => {
  server = await startServer(
    loadConfig({ PORT: '0', DATABASE_URL: 'memory:', API_TOKENS: TOKEN, LOG_LEVEL: 'silent' }),
  );
});
afterAll(async () => {
  await server?.stop();
});

/** The example from the clone's root, with these variables; its output and exit code. */
async function runExample(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['docs/examples/client.mts'], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

const ETAG = /"[A-Za-z0-9_-]{43}"/.source;

describe('docs/examples/client.mts', () => {
  it('when it is run against the service with a token, then it creates, changes under If-Match, is refused a stale ETag, and deletes; and again the same', async () => {
    for (const run of [1, 2]) {
      const { code, stdout, stderr } = await runExample({
        PLANT_STORE_URL: server.url,
        PLANT_STORE_TOKEN: TOKEN,
      });
      expect({ run, code, stderr }).toEqual({ run, code: 0, stderr: '' });
      expect(stdout).toMatch(
        new RegExp(
          [
            `^created \\{ name: 'Monstera', tag: 'aroid' \\} ${ETAG}`,
            `changed \\{ name: 'Monstera' \\} ${ETAG}`,
            'stale If-Match: 412 the plant with id 9223372036854775807 does not meet the precondition.*',
            'deleted: 204\n$',
          ].join('\n'),
        ),
      );
    }
    // Two Node processes, each stripping the example's types: more than the default 30 s on a busy machine.
  }, 120_000);

  it('when it is run without a token, then it says what to set and exits 1', async () => {
    const { code, stderr } = await runExample({ PLANT_STORE_URL: server.url });
    expect(code).toBe(1);
    expect(stderr).toMatch(/set PLANT_STORE_TOKEN/);
  });
});
