// The OpenTelemetry SDK's parts as the configuration says, each passed to it explicitly: left to
// itself the SDK would read the same OTEL_* variables again, by other rules (case-sensitive, silently
// falling back to a default), and do otherwise than the service accepted and logged.
import { DiagLogLevel, type TextMapPropagator } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  hostDetector,
  osDetector,
  processDetector,
  type Resource,
  resourceFromAttributes,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  type BatchSpanProcessorOptions,
  ParentBasedSampler,
  type Sampler,
  type SpanLimits,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from '../config.ts';
import { deadlineAgentFactory } from './export-deadline.ts';

type ExporterOptions = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

// The batch a processor exports at most when the variable is unset: the SDK's default.
const DEFAULT_BATCH_SIZE = 512;

// The specification's endpoint when OTEL_TRACES_EXPORTER names otlp and no endpoint is set.
const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** Where spans go: the traces endpoint as given, or the general one with `v1/traces` added to its path. */
export function tracesUrl(config: Config): string {
  if (config.otlpTracesEndpoint !== undefined) return new URL(config.otlpTracesEndpoint).href;
  const url = new URL(config.otlpEndpoint ?? DEFAULT_OTLP_ENDPOINT);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url.href;
}

/** How long one export may take, retries included. */
export function exportTimeoutMs(config: Config): number {
  return config.otlpTracesTimeoutMs ?? config.otlpTimeoutMs;
}

/** The headers sent with each export: the general ones, those of traces over them. */
export function exportHeaders(config: Config): Readonly<Record<string, string>> {
  return { ...config.otlpHeaders, ...config.otlpTracesHeaders };
}

/** The OTLP/HTTP exporter's options: every one it would otherwise read from the environment. */
export function exporterOptions(config: Config): ExporterOptions {
  const timeoutMs = exportTimeoutMs(config);
  return {
    url: tracesUrl(config),
    headers: { ...exportHeaders(config) },
    timeoutMillis: timeoutMs,
    compression: (config.otlpTracesCompression ?? config.otlpCompression) as NonNullable<
      ExporterOptions['compression']
    >,
    httpAgentOptions: deadlineAgentFactory(timeoutMs, {
      ca: config.otlpTracesCertificate ?? config.otlpCertificate,
      cert: config.otlpTracesClientCertificate ?? config.otlpClientCertificate,
      key: config.otlpTracesClientKey ?? config.otlpClientKey,
    }),
  };
}

/** The batch span processor's sizes and times. */
export function batchOptions(config: Config): Omit<BatchSpanProcessorOptions, 'exporter'> {
  return {
    maxQueueSize: config.bspMaxQueueSize,
    maxExportBatchSize: config.bspMaxExportBatchSize ?? Math.min(DEFAULT_BATCH_SIZE, config.bspMaxQueueSize),
    scheduledDelayMillis: config.bspScheduleDelayMs,
    exportTimeoutMillis: config.bspExportTimeoutMs,
  };
}

/** The sampler OTEL_TRACES_SAMPLER names, with OTEL_TRACES_SAMPLER_ARG's ratio. */
export function samplerOf(config: Config): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(config.tracesSamplerArg);
  switch (config.tracesSampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
  }
}

/**
 * W3C trace context (traceparent, tracestate) alone, or nothing: a caller's baggage is neither read nor
 * written, so no receiver, provider or stored event gets it. null: no propagator at all.
 */
export function propagatorOf(config: Config): TextMapPropagator | null {
  return config.otelPropagators === 'none' ? null : new W3CTraceContextPropagator();
}

/** Every span limit, so that the SDK reads none of OTEL_SPAN_* and OTEL_ATTRIBUTE_* itself. */
export function spanLimitsOf(config: Config): SpanLimits {
  return {
    attributeCountLimit: config.spanAttributeCountLimit ?? config.attributeCountLimit,
    attributeValueLengthLimit:
      config.spanAttributeValueLengthLimit ?? config.attributeValueLengthLimit ?? Number.POSITIVE_INFINITY,
    eventCountLimit: config.spanEventCountLimit,
    linkCountLimit: config.spanLinkCountLimit,
    attributePerEventCountLimit: config.eventAttributeCountLimit,
    attributePerLinkCountLimit: config.linkAttributeCountLimit,
  };
}

/**
 * The resource of every span: what the SDK detects of the process and host, then
 * OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME (else a service.name of those attributes, else
 * `plant-store`). The SDK's own detection, which would read those variables again, stays off.
 */
export function resourceOf(config: Config): Resource {
  const attributes = config.otelResourceAttributes ?? {};
  return defaultResource()
    .merge(
      detectResources({
        detectors: [serviceInstanceIdDetector, processDetector, hostDetector, osDetector],
      }),
    )
    .merge(
      resourceFromAttributes({
        ...attributes,
        [ATTR_SERVICE_NAME]: config.otelServiceName ?? attributes[ATTR_SERVICE_NAME] ?? 'plant-store',
      }),
    );
}

export const DIAG_LEVELS: Readonly<Record<Config['otelLogLevel'], DiagLogLevel>> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};
