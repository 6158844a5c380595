// CORS through @koa/cors (DESIGN.md, "Browsers (CORS)"): pages of the listed origins may call the service
// and read its answers, failures included; no credentials mode, ever (the bearer token is a header).
import koaCors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';
import type { CorsOrigins } from '../../config/values.ts';
import type { RoutedContext } from '../../metrics/request-metrics.ts';
import type { AppState } from '../app-state.ts';

/** What a page's script may read of an answer beyond the headers every CORS answer shows. */
export const EXPOSED_HEADERS = ['ETag', 'Link', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'];

/**
 * What a page may send: its token, its body's type, the conditions of a safe update, its trace context
 * (`tracestate` goes with `traceparent`) and a request id of its own, which the service echoes.
 */
export const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'traceparent',
  'tracestate',
  'X-Request-Id',
];

/** How long a browser may reuse a preflight's answer: within every browser's cap (Chromium's is 2 hours). */
export const PREFLIGHT_MAX_AGE_S = 600;

export interface CrossOrigin {
  /**
   * Outside the request-head checks and every route: the CORS headers on each answer to a listed origin,
   * its failures too (error-responses.ts, outside it, keeps the headers already set).
   */
  readonly answers: Middleware<AppState>;
  /**
   * After the router, which leaves the routes of the path on `ctx.matched` whatever the method: a preflight
   * of a listed origin answers 204 with the path's methods, without a token. Any other OPTIONS goes on (405).
   */
  readonly preflights: Middleware<AppState>;
}

/** A preflight, as @koa/cors tells one: OPTIONS with Access-Control-Request-Method. */
function isPreflight(ctx: Context): boolean {
  return ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
}

/** @koa/cors's `origin`: the allowed origin to answer with, or '' for none (no CORS header). */
function allowedOrigin(origins: CorsOrigins): (ctx: Context) => string {
  // Without Origin the request is not a CORS one: no header, even for `*`.
  if (origins === '*') return (ctx) => (ctx.get('Origin') === '' ? '' : '*');
  const listed = new Set(origins);
  return (ctx) => {
    const origin = ctx.get('Origin');
    return listed.has(origin) ? origin : '';
  };
}

/** The two halves of CORS for the origins of CORS_ORIGINS (see CrossOrigin). */
export function crossOrigin(origins: CorsOrigins): CrossOrigin {
  const shared: koaCors.Options = {
    origin: allowedOrigin(origins),
    exposeHeaders: EXPOSED_HEADERS,
    allowHeaders: ALLOWED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false,
    // error-responses.ts answers every failure itself, keeping the headers already set: nothing to copy.
    keepHeadersOnError: false,
  };
  const forAnswers = koaCors(shared);
  // @koa/cors takes the methods as an option: one instance per list of methods, a handful in all.
  const forPreflights = new Map<string, Middleware<AppState>>();
  const preflightOf = (methods: readonly string[]): Middleware<AppState> => {
    const key = methods.join(',');
    let answer = forPreflights.get(key);
    if (answer === undefined) {
      answer = koaCors({ ...shared, allowMethods: [...methods] });
      forPreflights.set(key, answer);
    }
    return answer;
  };
  return {
    answers: (ctx, next) => (isPreflight(ctx) ? next() : forAnswers(ctx, next)),
    preflights: (ctx, next: Next) => {
      if (!isPreflight(ctx)) return next();
      const methods = [...new Set((ctx as RoutedContext).matched?.flatMap((layer) => layer.methods))];
      // An unknown path: the router's 404, without CORS headers (the browser fails the preflight either way).
      if (methods.length === 0) return next();
      return preflightOf(methods)(ctx, next);
    },
  };
}
