import type { Context } from 'koa';
import type { Metrics } from './metrics.ts';

interface RouterContext {
  /** Set by @koa/router when a route matched the path and the method. */
  readonly _matchedRoute?: unknown;
  /** Every layer that matched the path, whatever the method (a 405 has these only). */
  readonly matched?: readonly { readonly path?: unknown; readonly methods?: readonly string[] }[];
}

/** The route pattern the request matched, or `unmatched`: a bounded label, never the raw path. */
function routeOf(ctx: Context): string {
  const router = ctx as unknown as RouterContext;
  if (typeof router._matchedRoute === 'string') return router._matchedRoute;
  const layer = router.matched?.find((candidate) => (candidate.methods?.length ?? 0) > 0);
  return typeof layer?.path === 'string' ? layer.path : 'unmatched';
}

/** Counts and times a finished request by method, route and final status (see request-log.ts, which calls it). */
export function recordRequest(metrics: Metrics, ctx: Context, startedAt: number): void {
  metrics.requestFinished(
    { method: ctx.method, route: routeOf(ctx), status: String(ctx.status) },
    (performance.now() - startedAt) / 1000,
  );
}
