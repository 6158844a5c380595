import type { PlantStorage } from '@plant-store/domain';
import { composeService } from '../../src/compose.ts';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, serve } from '../../src/server.ts';
import type { OpenedStorage } from '../../src/storage-adapters.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';

export const TOKEN = 'test-token-0123456789';
export const OTHER_TOKEN = 'second.token_with~all+kinds/of=';

export interface TestServer extends RunningServer {
  readonly storage: PlantStorage;
  readonly logs: LogCapture;
  /** POST /plants with the token and a JSON content type; the body is sent as given when a string. */
  createPlant(body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Starts the real server on a free port of 127.0.0.1 over the given storage, with logs captured:
 * composed and served as a start does, over this storage instead of the one DATABASE_URL names.
 * `adapter`: what an adapter adds to a storage it opens (its pool's figures, its webhook queue).
 */
export async function startTestServer(
  storage: PlantStorage,
  env: NodeJS.ProcessEnv = {},
  adapter: Omit<OpenedStorage, 'storage'> = {},
): Promise<TestServer> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: 'memory:',
    API_TOKENS: `${TOKEN},${OTHER_TOKEN}`,
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs = captureLogs();
  const opened: OpenedStorage = { storage, ...adapter };
  const server = await serve(
    config,
    await composeService(config, opened, { logDestination: logs.destination }),
  );
  return {
    url: server.url,
    port: server.port,
    stop: server.stop,
    storage,
    logs,
    createPlant: (body, headers = {}) =>
      fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}
