// Loaded only when tracing is on (tracing.ts): the SDK and its exporters stay out of a run without it.
import {
  type Attributes,
  createNoopMeter,
  type DiagLogger,
  DiagLogLevel,
  diag,
  type Meter,
  type MeterProvider,
} from '@opentelemetry/api';
import { getNumberFromEnv } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Tracing } from './tracing.ts';

// The counter a span processor reports each span's end to, with `error.type` when it was not
// exported (`queue_full` for one dropped at a full queue); its semantic-conventions name.
const SPANS_PROCESSED = 'otel.sdk.processor.span.processed';
// A collector that stays down makes the same complaint at every export: once a minute is enough.
const REPEAT_AFTER_MS = 60_000;

/**
 * The span processor's self-observability meter (its `selfObsMeterProvider` option), reduced to the
 * one counter /metrics shows; every other instrument is the API's no-op.
 */
function processedSpansMeter(
  count: (spans: number, attributes: Attributes | undefined) => void,
): MeterProvider {
  const noop = createNoopMeter();
  const meter: Meter = Object.create(noop, {
    createCounter: {
      value: (name: string, options?: Parameters<Meter['createCounter']>[1]) =>
        name === SPANS_PROCESSED ? { add: count } : noop.createCounter(name, options),
    },
  });
  return { getMeter: () => meter };
}

/** The SDK's own complaints (an export refused, a bad variable) as warnings in the service's log. */
function diagToLog(logger: Logger): DiagLogger {
  const lastSaid = new Map<string, number>();
  const say = (message: string, args: unknown[]) => {
    const now = performance.now();
    if (now - (lastSaid.get(message) ?? Number.NEGATIVE_INFINITY) < REPEAT_AFTER_MS) return;
    if (lastSaid.size > 100) lastSaid.clear();
    lastSaid.set(message, now);
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
    logger.warn({ detail: detail || undefined }, `traces: ${message}`);
  };
  return { error: (m, ...a) => say(m, a), warn: (m, ...a) => say(m, a), info() {}, debug() {}, verbose() {} };
}

const BATCH_SETTINGS = {
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
} as const;

/** The OTEL_BSP_* numbers set, as the SDK reads them (a negative one is ignored, as there). */
function batchSettings(): { [Option in keyof typeof BATCH_SETTINGS]?: number } {
  return Object.fromEntries(
    Object.entries(BATCH_SETTINGS).flatMap(([option, variable]) => {
      const value = getNumberFromEnv(variable);
      return value === undefined || value < 0 ? [] : [[option, value]];
    }),
  );
}

/**
 * The OpenTelemetry Node SDK with traces only (the service's metrics are /metrics', its logs stdout's),
 * exported over OTLP/HTTP in batches. The span processor is built here rather than by the SDK from the
 * environment only to give it the meter that counts dropped spans; it reads the same OTEL_BSP_* variables.
 */
export function startNodeTracing(config: Config, logger: Logger): Tracing {
  const counts = { exported: 0, queueFull: 0, exportFailed: 0 };
  const selfObsMeterProvider = processedSpansMeter((spans, attributes) => {
    const errorType = attributes?.['error.type'];
    if (errorType === undefined) counts.exported += spans;
    else if (errorType === 'queue_full') counts.queueFull += spans;
    else counts.exportFailed += spans;
  });
  // OTEL_LOG_LEVEL, when set, has the SDK write its diagnostics to the console instead.
  if (process.env.OTEL_LOG_LEVEL === undefined) diag.setLogger(diagToLog(logger), DiagLogLevel.WARN);
  const protocol = config.otlpTracesProtocol ?? config.otlpProtocol;
  // Each exporter reads its endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*.
  const exporter = protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const processor = new BatchSpanProcessor({
    exporter,
    selfObsMeterProvider,
    ...batchSettings(),
  });
  const sdk = new NodeSDK({
    // Under what the environment detects: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over it.
    resource: defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.otelServiceName }),
    ),
    spanProcessors: [processor],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const endpoint = config.otlpTracesEndpoint ?? `${config.otlpEndpoint}/v1/traces`;
  logger.info({ endpoint, protocol, sampler: config.tracesSampler }, 'traces: exporting over OTLP/HTTP');
  return {
    figures: {
      exported: () => counts.exported,
      dropped: () => ({ queueFull: counts.queueFull, exportFailed: counts.exportFailed }),
    },
    async shutdown(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = sdk.shutdown().then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error }, 'traces: the last export failed');
          return true;
        },
      );
      const flushed = await Promise.race([done, late]);
      clearTimeout(timer);
      if (!flushed) logger.warn({ timeoutMs }, 'traces: the collector did not take the last spans in time');
      return flushed;
    },
  };
}
