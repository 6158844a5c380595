import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-version.ts';
import { ATTR_WEBHOOK_EVENT_ID } from './semconv.ts';

/** A W3C carrier as RecordedEvent.traceContext and DeliveryJob.traceContext hold it. */
export type TraceCarrier = Readonly<Record<string, string>>;

/** The context a carrier names; undefined when it names none (tracing was off when it was filled). */
export function contextOf(carrier: TraceCarrier | undefined): Context | undefined {
  if (carrier === undefined) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier);
  return trace.getSpanContext(extracted) === undefined ? undefined : extracted;
}

/** A link to each event's recorded context that names one, with the event's id on it. */
export function linksTo(
  items: readonly { readonly eventId: string; readonly traceContext?: TraceCarrier | undefined }[],
): Link[] {
  const links: Link[] = [];
  for (const { eventId, traceContext } of items) {
    const recorded = contextOf(traceContext);
    const spanContext = recorded && trace.getSpanContext(recorded);
    if (spanContext) links.push({ context: spanContext, attributes: { [ATTR_WEBHOOK_EVENT_ID]: eventId } });
  }
  return links;
}

/** The class of a thrown error, for `error.type`: its code when it has one, else its name. */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : '_OTHER';
}

/**
 * Runs `work` in a new span, made current: a rejection marks it failed (and is passed on).
 * Without a registered SDK the span is a no-op. The tracer is looked up at each use, not kept: one
 * taken before `trace.disable()` (a tracing stopped and started again) would stay a no-op.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent = context.active(),
): Promise<T> {
  return trace
    .getTracer(PACKAGE_NAME, PACKAGE_VERSION)
    .startActiveSpan(name, options, parent, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
        throw error;
      } finally {
        span.end();
      }
    });
}
