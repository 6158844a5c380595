import type { RouterContext } from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { AppState } from '../http/app-state.ts';
import type { Metrics } from './metrics.ts';

/** What @koa/router leaves on a request's context: the route it ran, and the routes the path matched. */
export type RoutedContext = ParameterizedContext<AppState> &
  Partial<Pick<RouterContext<AppState>, 'routerPath' | 'routerName' | 'matched'>>;

/** The route pattern the path matched (a 405's too), or `unmatched`: a bounded label, never the raw path. */
export function routeOf(ctx: RoutedContext): string {
  const pattern = ctx.routerPath ?? ctx.matched?.[0]?.path;
  return typeof pattern === 'string' ? pattern : 'unmatched';
}

/**
 * The OpenAPI path (a parameter as `{name}`) of the route the path matched (a 405's too): each route is named by
 * its operation's path (operations/routes.ts). Undefined when none matched.
 */
export function openApiPathOf(ctx: RoutedContext): string | undefined {
  const name = ctx.routerName ?? ctx.matched?.[0]?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Counts and times a finished request by method, route (routeOf) and final status (see request-log.ts, which calls it). */
export function recordRequest(metrics: Metrics, ctx: RoutedContext, route: string, startedAt: number): void {
  metrics.requestFinished(ctx.method, route, ctx.status, (performance.now() - startedAt) / 1000);
}
