import type { Middleware } from 'koa';
import type { AppState } from '../app-state.ts';

/**
 * While the server stops, every answer carries `Connection: close`, so that keep-alive clients
 * go elsewhere instead of sending their next request to a server that is going away. Decided
 * after the request is handled, so that requests already in flight when stopping began get it too.
 */
export function closeConnectionsWhileStopping(isShuttingDown: () => boolean): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (isShuttingDown()) ctx.set('Connection', 'close');
    }
  };
}
