import type { Middleware } from 'koa';
import type { AppState } from '../http/app-state.ts';
import type { Metrics } from './metrics.ts';

/** GET /metrics: the registry in Prometheus' text format. Behind the bearer check (see app.ts). */
export function metricsHandler(metrics: Metrics): Middleware<AppState> {
  return async (ctx) => {
    ctx.body = await metrics.registry.metrics();
    ctx.set('Content-Type', metrics.registry.contentType);
    ctx.set('Cache-Control', 'no-store');
  };
}
