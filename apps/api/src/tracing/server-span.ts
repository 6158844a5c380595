import type { IncomingMessage } from 'node:http';
import {
  type Attributes,
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
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

// The SDK's getTracer builds and looks up a key on every call: one tracer is kept for the provider the
// API answers, which is another one only once tracing is registered anew (tests do, between runs).
let kept: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (kept?.provider !== provider)
    kept = { provider, tracer: provider.getTracer(PACKAGE_NAME, PACKAGE_VERSION) };
  return kept.tracer;
}

/** One request's server span, begun before the app runs it. */
export interface TracedRequest {
  /** Runs the rest of the app with the span as the active one: the work it starts is its children. */
  run(next: () => Promise<void>): Promise<void>;
  /** `trace_id` and `span_id` for the request's log line; none while tracing is off. */
  logFields(): { readonly trace_id?: string; readonly span_id?: string };
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
  // No traceparent, no parent: the propagator would look for it and answer the context it was given.
  const parent =
    req.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, req.headers);
  // Read for every request, sampled or not: Node keeps it on the socket the first time (`_peername`), and
  // sockets given it only by a sampled request took a shape of their own, which deoptimized Node's HTTP
  // path whenever one came (bench/PROFILE.md, "Traces").
  const clientAddress = req.socket.remoteAddress;
  // No attributes at the start: every sampler the service configures is one of the SDK's built-in ones
  // (sdk-options.ts), none of which reads them, and an unsampled span would have them copied and
  // checked for nothing. A recording span gets them at once, before any other work is done.
  const span = tracer().startSpan(method === '_OTHER' ? 'HTTP' : method, { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) {
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: query === -1 ? target : target.slice(0, query),
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
      'plant_store.request_id': requestId,
    };
    if (method === '_OTHER') attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = original;
    const userAgent = req.headers['user-agent'];
    if (userAgent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = userAgent;
    if (clientAddress !== undefined) attributes[ATTR_CLIENT_ADDRESS] = clientAddress;
    span.setAttributes(attributes);
  }
  // With tracing off and no caller's trace, the span is the API's empty one: making it active (a
  // context and a closure a request) would change nothing that runs under it.
  const active = span.spanContext() === INVALID_SPAN_CONTEXT ? parent : trace.setSpan(parent, span);
  return {
    run: active === ROOT_CONTEXT ? (next) => next() : (next) => context.with(active, next),
    // Made only when a log line is written: at LOG_LEVEL=warn a served request writes none. A method,
    // not a getter: V8 gives a getter here an AccessorPair in the old space each request, which kept the
    // closure, the span and its context past every scavenge (bench/PROFILE.md, "Memory under load").
    logFields() {
      const ids = span.spanContext();
      return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
    },
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
