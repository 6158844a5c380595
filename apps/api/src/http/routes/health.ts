import type { PlantStorage } from '@plant-store/domain';
import { StorageUnavailableError } from '@plant-store/domain';
import type { Middleware } from 'koa';
import type { CredentialChecker } from '../../auth/credentials.ts';
import type { AppState } from '../app-state.ts';
import { HttpError, RETRY_LATER } from '../http-error.ts';

/** GET /healthz: the process answers. Says nothing about storage, so a database outage never restarts it. */
export function healthHandler(): Middleware<AppState> {
  return (ctx) => {
    ctx.body = { status: 'ok' };
  };
}

/**
 * GET /readyz: whether to send traffic here: storage answers, the server is not stopping, and the
 * credentials can be checked (with JWT, the provider's keys were loaded once).
 */
export function readinessHandler(
  storage: PlantStorage,
  isShuttingDown: () => boolean,
  credentials: Pick<CredentialChecker, 'ready'>,
): Middleware<AppState> {
  return async (ctx) => {
    if (isShuttingDown()) throw new HttpError(503, 'the server is shutting down', RETRY_LATER);
    if (!credentials.ready()) {
      throw new HttpError(503, "the identity provider's keys are not loaded yet", RETRY_LATER);
    }
    try {
      await storage.checkReady();
    } catch (error) {
      if (error instanceof StorageUnavailableError) throw error;
      // Not ready either way; the unexpected cause goes to the log, not to the client.
      ctx.state.failure = error;
      throw new HttpError(503, 'storage is not ready', RETRY_LATER);
    }
    ctx.body = { status: 'ready' };
  };
}
