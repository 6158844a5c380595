import type { ParameterizedContext } from 'koa';
import type { AppState } from '../http/app-state.ts';
import type { Metrics } from './metrics.ts';

/** Counts and times a finished request by method, route and final status (see request-log.ts, which calls it). */
export function recordRequest(
  metrics: Metrics,
  ctx: ParameterizedContext<AppState>,
  startedAt: number,
): void {
  metrics.requestFinished(
    // The route pattern the path matched (a 405 too), or `unmatched`: a bounded label, never the raw path.
    { method: ctx.method, route: ctx.state.route ?? 'unmatched', status: String(ctx.status) },
    (performance.now() - startedAt) / 1000,
  );
}
