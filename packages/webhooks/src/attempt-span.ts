import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import type { AttemptOutcome } from './attempt.ts';
import type { DeliveryJob } from './delivery-job.ts';
import { ATTR_WEBHOOK_ATTEMPT, ATTR_WEBHOOK_EVENT_ID } from './semconv.ts';
import { contextOf, inSpan } from './tracing.ts';

/**
 * `url.full` with no secret a URL may carry where we can tell one: userinfo, and every query value
 * (apps/api's log leaves the query out for the same reason). A secret in the path stays visible.
 */
export function redactedUrl(url: URL): string {
  const shown = new URL(url);
  if (shown.username !== '' || shown.password !== '') {
    shown.username = 'REDACTED';
    shown.password = 'REDACTED';
  }
  if (shown.search !== '') {
    const keys = [...shown.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=REDACTED`);
    shown.search = keys.join('&');
  }
  return shown.href;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

// A job's URL is one of the few configured: its attributes are made once, not at every attempt.
const urlAttributes = new Map<string, Attributes>();
const MAX_URLS_KEPT = 1_000;

function attributesOf(url: string): Attributes {
  let attributes = urlAttributes.get(url);
  if (attributes === undefined) {
    attributes = {};
    try {
      const parsed = new URL(url);
      attributes = {
        [ATTR_URL_FULL]: redactedUrl(parsed),
        [ATTR_SERVER_ADDRESS]: parsed.hostname,
        [ATTR_SERVER_PORT]: parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port),
      };
    } catch {
      // Unreadable: the attempt fails on it and says so in error.type.
    }
    if (urlAttributes.size >= MAX_URLS_KEPT) urlAttributes.clear();
    urlAttributes.set(url, attributes);
  }
  return attributes;
}

function record(span: Span, outcome: AttemptOutcome): void {
  switch (outcome.kind) {
    case 'delivered':
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
      return;
    case 'gone':
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
      span.setAttribute(ATTR_ERROR_TYPE, String(outcome.status));
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'answered 410' });
      return;
    case 'failed':
      if (outcome.status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
      span.setAttribute(ATTR_ERROR_TYPE, outcome.errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
      return;
    case 'abandoned':
      span.setAttribute(ATTR_ERROR_TYPE, 'abandoned');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the service stopped during the attempt' });
      return;
  }
}

/**
 * Runs one attempt in a CLIENT span whose context the request carries (traceparent). Its parent is
 * the create that recorded the event, from the job's trace context, and it links to the span under
 * way (pg-boss's batch); with no trace context it is a child of that span instead.
 */
export function inAttemptSpan(
  job: DeliveryJob,
  attempt: () => Promise<AttemptOutcome>,
): Promise<AttemptOutcome> {
  const active = context.active();
  const recorded = contextOf(job.traceContext);
  const batch = recorded && trace.getSpanContext(active);
  const attributes: Attributes = {
    ...attributesOf(job.url),
    [ATTR_HTTP_REQUEST_METHOD]: 'POST',
    [ATTR_WEBHOOK_EVENT_ID]: job.eventId,
    [ATTR_WEBHOOK_ATTEMPT]: job.attempt + 1,
  };
  if (job.attempt > 0) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = job.attempt;
  return inSpan(
    'POST',
    { kind: SpanKind.CLIENT, attributes, ...(batch && { links: [{ context: batch }] }) },
    async (span) => {
      const outcome = await attempt();
      if (span.isRecording()) record(span, outcome);
      return outcome;
    },
    recorded ?? active,
  );
}
