// OTEL_TRACES_EXPORTER=console: each span as a line of the service's log. The SDK's ConsoleSpanExporter
// writes a console.dir dump of several lines to stdout, in the middle of the log's JSON lines; a line of
// the log stays JSON, is found beside its request's line by trace_id (jq, pino-pretty read both), and is
// never torn by another line written at the same time.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode, hrTimeToMicroseconds } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

/** A span as the fields of its log line: the ids under the names the request lines use. */
function spanLine(span: ReadableSpan): Record<string, unknown> {
  const { traceId, spanId } = span.spanContext();
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: span.parentSpanContext?.spanId,
    span: span.name,
    kind: SpanKind[span.kind],
    durationMs: Math.round(hrTimeToMicroseconds(span.duration)) / 1000,
    status:
      span.status.code === SpanStatusCode.UNSET
        ? undefined
        : { code: SpanStatusCode[span.status.code], message: span.status.message },
    attributes: span.attributes,
    events:
      span.events.length === 0
        ? undefined
        : span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
  };
}

/** An exporter that writes each span it is given as an info line `span` of `logger`. */
export function logSpanExporter(logger: Logger): SpanExporter {
  return {
    export(spans, done) {
      for (const span of spans) logger.info(spanLine(span), 'span');
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
    forceFlush: () => Promise.resolve(),
  };
}
