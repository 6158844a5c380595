// Loaded only when tracing is on (tracing.ts): the SDK and its exporters stay out of a run without it.
import { type Attributes, createNoopMeter, diag, type Meter, type MeterProvider } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { redactedUrl } from '@plant-store/webhooks';
import type { Logger } from 'pino';
import type { TraceExporter } from '../config/otel-values.ts';
import type { Config } from '../config.ts';
import { diagToLog, oneLine } from './diag-log.ts';
import { withExportDeadline } from './export-deadline.ts';
import { logSpanExporter } from './log-exporter.ts';
import {
  batchOptions,
  DIAG_LEVELS,
  exporterOptions,
  exportHeaders,
  exportTimeoutMs,
  propagatorOf,
  resourceOf,
  samplerOf,
  spanLimitsOf,
  tracesUrl,
} from './sdk-options.ts';

/** What became of the spans handed to the exporter, for /metrics. */
export interface TraceExportFigures {
  /** Spans the collector accepted. */
  exported(): number;
  /** Spans not exported: the queue was full (`queueFull`), or the collector refused or did not answer. */
  dropped(): { readonly queueFull: number; readonly exportFailed: number };
}

/** Tracing as started: its figures, and the flush at the end. */
export interface Tracing {
  /** What became of the spans sent over OTLP; undefined when none are. */
  readonly figures: TraceExportFigures | undefined;
  /**
   * Exports what is queued and stops; resolves true once done, or false at `timeoutMs` (a collector
   * that does not answer), whatever is still queued then being lost.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

// The counter a span processor reports each span's end to, with `error.type` when it was not
// exported (`queue_full` for one dropped at a full queue); its semantic-conventions name.
const SPANS_PROCESSED = 'otel.sdk.processor.span.processed';

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

/**
 * The OpenTelemetry Node SDK with traces only (the service's metrics are /metrics', its logs stdout's),
 * exported over OTLP/HTTP in batches, and/or written to the log one line a span as each ends. Every part
 * is built here from the configuration and handed to the SDK (sdk-options.ts): the SDK reads no OTEL_*
 * variable of its own.
 */
export function startNodeTracing(
  config: Config,
  logger: Logger,
  exporters: readonly TraceExporter[],
): Tracing {
  const counts = { exported: 0, queueFull: 0, exportFailed: 0 };
  const diagLogger = diagToLog(logger);
  const logLevel = DIAG_LEVELS[config.otelLogLevel];
  diag.setLogger(diagLogger, { logLevel, suppressOverrideMessage: true });
  // The SDK's default handler writes a failed export's error whole, stack included, as JSON.
  setGlobalErrorHandler((error) => diagLogger.error(oneLine(error)));
  const spanProcessors: SpanProcessor[] = [];
  const sampling = {
    sampler: config.tracesSampler,
    ...(config.tracesSampler.endsWith('traceidratio') && { samplerRatio: config.tracesSamplerArg }),
    propagators: config.otelPropagators,
  };
  if (exporters.includes('otlp')) {
    const selfObsMeterProvider = processedSpansMeter((spans, attributes) => {
      const errorType = attributes?.['error.type'];
      if (errorType === undefined) counts.exported += spans;
      else if (errorType === 'queue_full') counts.queueFull += spans;
      else counts.exportFailed += spans;
    });
    const protocol = config.otlpTracesProtocol ?? config.otlpProtocol;
    const options = exporterOptions(config);
    const exporter = withExportDeadline(
      protocol === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options),
      exportTimeoutMs(config),
    );
    spanProcessors.push(new BatchSpanProcessor({ exporter, selfObsMeterProvider, ...batchOptions(config) }));
    logger.info(
      {
        endpoint: redactedUrl(new URL(tracesUrl(config))),
        protocol,
        // Their names alone: the values are API keys.
        headers: Object.keys(exportHeaders(config)),
        compression: config.otlpTracesCompression ?? config.otlpCompression,
        ...sampling,
      },
      'traces: exporting over OTLP/HTTP',
    );
  }
  if (exporters.includes('console')) {
    // As the SDK pairs its console exporter: each span written as it ends, not in batches.
    spanProcessors.push(new SimpleSpanProcessor({ exporter: logSpanExporter(logger) }));
    logger.info(sampling, 'traces: each span a line of this log ("msg":"span") as it ends');
  }
  // NodeSDK's constructor puts a console logger of its own in place when OTEL_LOG_LEVEL is set (warning
  // the one before with a stack): ours is taken off first, and put back after, quietly.
  diag.disable();
  const sdk = new NodeSDK({
    resource: resourceOf(config),
    autoDetectResources: false,
    sampler: samplerOf(config),
    spanLimits: spanLimitsOf(config),
    textMapPropagator: propagatorOf(config),
    spanProcessors,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  diag.setLogger(diagLogger, { logLevel, suppressOverrideMessage: true });
  sdk.start();
  return {
    figures: exporters.includes('otlp')
      ? {
          exported: () => counts.exported,
          dropped: () => ({ queueFull: counts.queueFull, exportFailed: counts.exportFailed }),
        }
      : undefined,
    async shutdown(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = sdk.shutdown().then(
        () => true,
        (error: unknown) => {
          logger.warn({ reason: oneLine(error) }, 'traces: the last export failed');
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
