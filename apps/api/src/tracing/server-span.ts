import type { IncomingMessage } from 'node:http';
import {
  type Attributes,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-version.ts';

// The methods the HTTP conventions name; any other is `_OTHER`, its span named `HTTP`.
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

/** One request's server span, begun before the app runs it. */
export interface TracedRequest {
  /** Runs the rest of the app with the span as the active one: the work it starts is its children. */
  run(next: () => Promise<void>): Promise<void>;
  /** `trace_id` and `span_id` for the request's log line; none while tracing is off. */
  readonly logFields: { readonly trace_id?: string; readonly span_id?: string };
  /** Names the span by its route (its OpenAPI path, a parameter as `{name}`; undefined when none matched), and ends it. */
  end(status: number, route: string | undefined, failure: unknown): void;
}

/**
 * Begins the SERVER span of a request, the child of the caller's `traceparent` when it sends one
 * (the SDK's parent-based sampler follows the caller's decision). With tracing off it is the API's
 * no-op span, and nothing is recorded.
 */
export function startServerSpan(req: IncomingMessage, requestId: string): TracedRequest {
  const original = req.method ?? 'GET';
  const method = KNOWN_METHODS.has(original) ? original : '_OTHER';
  const target = req.url ?? '/';
  const query = target.indexOf('?');
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = trace.getTracer(PACKAGE_NAME, PACKAGE_VERSION).startSpan(
    method === '_OTHER' ? 'HTTP' : method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: query === -1 ? target : target.slice(0, query),
        [ATTR_URL_SCHEME]: 'http',
      },
    },
    parent,
  );
  if (span.isRecording()) {
    const more: Attributes = {
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
      'plant_store.request_id': requestId,
    };
    if (method === '_OTHER') more[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = original;
    const userAgent = req.headers['user-agent'];
    if (userAgent !== undefined) more[ATTR_USER_AGENT_ORIGINAL] = userAgent;
    const clientAddress = req.socket.remoteAddress;
    if (clientAddress !== undefined) more[ATTR_CLIENT_ADDRESS] = clientAddress;
    span.setAttributes(more);
  }
  const ids = span.spanContext();
  const active = trace.setSpan(parent, span);
  return {
    run: (next) => context.with(active, next),
    logFields: isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {},
    end(status, route, failure) {
      if (span.isRecording()) {
        if (route !== undefined) {
          span.setAttribute(ATTR_HTTP_ROUTE, route);
          if (method !== '_OTHER') span.updateName(`${method} ${route}`);
        }
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        // A server span fails on a 5xx only: a 4xx is the client's mistake, answered as designed.
        if (status >= 500) {
          span.setAttribute(ATTR_ERROR_TYPE, failure instanceof Error ? failure.name : String(status));
          if (failure instanceof Error) span.recordException(failure);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      span.end();
    },
  };
}
