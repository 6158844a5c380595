import { type ComposeOptions, composeService, openConfiguredStorage } from './compose.ts';
import type { Config } from './config.ts';
import { type RunningServer, serve } from './server.ts';

/**
 * A start, as main.ts makes it: opens the storage the configuration names (running migrations),
 * composes the service over it, and serves it on config.host and config.port (0: any free port).
 */
export async function startServer(config: Config, options: ComposeOptions = {}): Promise<RunningServer> {
  const opened = await openConfiguredStorage(config);
  return serve(config, await composeService(config, opened, options));
}
