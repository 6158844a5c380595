import { type Context, context, propagation, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** The span id of `unsampledContext()`'s span. */
export const UNSAMPLED_SPAN_ID = 'b7ad6b7169203331';

/** A context whose active span records nothing: a caller's parent that was not sampled (flags 00). */
export function unsampledContext(): Context {
  const span = trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: UNSAMPLED_SPAN_ID,
    traceFlags: TraceFlags.NONE,
  });
  return trace.setSpan(ROOT_CONTEXT, span);
}

export interface InMemoryTracing {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
  /**
   * Runs `work` in a span of the test's own, named `name` and ended once `work` settles, standing for
   * a caller's (a request's): the spans the code under test makes are its children.
   */
  withinSpan<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Unregisters everything it registered: the API is a no-op again. */
  stop(): Promise<void>;
}

/**
 * Registers a tracer provider that keeps every span in memory, with the context manager and W3C
 * propagator the service's SDK registers, for tests of code that makes spans through
 * `@opentelemetry/api` (every span sampled).
 */
export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  // Registered into the API's proxy, as the SDK does: the tracers modules took when they were loaded
  // (trace.getTracer at import) start recording. Only a registration left behind is undone first:
  // that replaces the proxy, and tracers taken earlier would stay no-ops.
  if (!trace.setGlobalTracerProvider(provider)) {
    trace.disable();
    trace.setGlobalTracerProvider(provider);
  }
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.disable();
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    withinSpan: (name, work) =>
      provider
        .getTracer('@plant-store/test-support')
        .startActiveSpan(name, (span) => work().finally(() => span.end())),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
