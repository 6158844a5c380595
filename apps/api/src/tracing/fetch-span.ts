import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-version.ts';

/** Marks the span failed by `error`: its type, and its message as the status's. */
export function failWith(span: Span, error: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * A GET through `fetch` as a CLIENT span, the request carrying its `traceparent`. The URL's user and
 * password, if any, never reach the span.
 */
export async function tracedGet(
  fetchOf: typeof globalThis.fetch,
  url: string,
  init: { readonly timeoutMs: number; readonly headers: Record<string, string> },
): Promise<Response> {
  const target = new URL(url);
  target.username = '';
  target.password = '';
  const span = trace.getTracer(PACKAGE_NAME, PACKAGE_VERSION).startSpan('GET', {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: 'GET',
      [ATTR_URL_FULL]: target.href,
      [ATTR_SERVER_ADDRESS]: target.hostname,
      [ATTR_SERVER_PORT]: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    },
  });
  const headers = { ...init.headers };
  propagation.inject(trace.setSpan(context.active(), span), headers);
  try {
    // Never follows a redirect: a provider's keys come from the URL configured or discovered.
    const response = await fetchOf(url, {
      signal: AbortSignal.timeout(init.timeoutMs),
      headers,
      redirect: 'error',
    });
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status);
    if (response.status >= 400) {
      span.setAttribute(ATTR_ERROR_TYPE, String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  } catch (error) {
    failWith(span, error);
    throw error;
  } finally {
    span.end();
  }
}
