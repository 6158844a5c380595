import type { PlantStorage } from '@plant-store/domain';
import type { ConnectionPoolStats } from '@plant-store/storage-postgres';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, type StartOptions, startServer } from '../../src/server.ts';
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
 * Starts the real server on a free port of 127.0.0.1 over the given storage, with logs captured.
 * `connectionPool`: the figures of the storage's pool, for /metrics, as the composition root hands them.
 */
export async function startTestServer(
  storage: PlantStorage,
  env: NodeJS.ProcessEnv = {},
  connectionPool?: () => ConnectionPoolStats,
  options: Pick<StartOptions, 'waitGrace'> = {},
): Promise<TestServer> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: 'memory:',
    API_TOKENS: `${TOKEN},${OTHER_TOKEN}`,
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs = captureLogs();
  const server = await startServer(config, {
    storage,
    connectionPool,
    logDestination: logs.destination,
    ...options,
  });
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
