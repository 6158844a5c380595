import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Metrics } from '../../metrics/metrics.ts';
import { openApiPathOf, recordRequest, routeOf } from '../../metrics/request-metrics.ts';
import { startServerSpan } from '../../tracing/server-span.ts';
import type { AppState } from '../app-state.ts';

// An incoming id is trusted only when it cannot forge log structure or flood the line.
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * Writes one JSON log line per request (method, path, status, duration, request id, the caller
 * once known, the trace and span ids while tracing is on; never a header), echoes the request id in
 * `X-Request-Id`, counts and times the request in the metrics, and makes its server span. Outermost,
 * so it sees the final status. One middleware for the four: each layer of Koa's chain is a promise
 * and a closure on every request.
 */
export function requestLog(logger: Logger, metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    const startedAt = performance.now();
    metrics.requestStarted();
    // Node's own headers: Koa's ctx.get and ctx.set lower-case the name, and set builds two arrays
    // and a closure a call (bench/PROFILE.md, "The request path in memory").
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.state.requestId = requestId;
    ctx.res.setHeader('X-Request-Id', requestId);
    const traced = startServerSpan(ctx.req, requestId);
    try {
      await traced.run(next);
    } finally {
      recordRequest(metrics, ctx, routeOf(ctx), startedAt);
      const failure = ctx.state.failure;
      traced.end(ctx.status, openApiPathOf(ctx), failure);
      // Built only when it is written: at LOG_LEVEL=warn a served request costs no log line at all.
      if (failure !== undefined || logger.isLevelEnabled('info')) {
        const line = {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
          // Who it was (sub, client_id, or a static token's short digest), never the credential.
          ...(ctx.state.caller === undefined ? {} : { caller: ctx.state.caller }),
          ...traced.logFields(),
        };
        if (failure === undefined) logger.info(line, 'request');
        else logger.error({ ...line, err: failure }, 'request failed');
      }
    }
  };
}
