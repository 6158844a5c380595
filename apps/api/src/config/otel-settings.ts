// The OTEL_* variables the service reads (docs/observability.md): a part of config.ts's table of
// settings. The service hands what it read to the OpenTelemetry SDK (tracing/sdk-options.ts), so that
// what it accepts and logs is what the SDK does.
import {
  certificateFile,
  otlpHeaders,
  privateKeyFile,
  propagators,
  resourceAttributes,
  traceExporters,
} from './otel-values.ts';
import { setting } from './setting.ts';
import { httpUrl, oneOf, ratio, text, trueFalse, wholeNumber } from './values.ts';

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const OTLP_COMPRESSIONS = ['none', 'gzip'] as const;
const TRACES_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
/** The SDK's diagnostic levels (DiagLogLevel), quietest first. */
export const OTEL_LOG_LEVELS = ['none', 'error', 'warn', 'info', 'debug', 'verbose', 'all'] as const;
// What the OpenTelemetry SDK takes as a limit or size; a delay or timeout stays below Node's timer bound too.
const otelCount = wholeNumber(0, 1_000_000);
const otelSize = wholeNumber(1, 1_000_000);
const otelMs = wholeNumber(1, 600_000);

/**
 * Traces: on when OTEL_TRACES_EXPORTER names an exporter, or, unset, when an OTLP endpoint is set
 * (tracing/tracing.ts); a `_TRACES_` variable wins over its general one.
 */
export const OTEL_SETTINGS = {
  /** Unset: otlp when an endpoint is set, else none; `console`: each span a line of the log. */
  tracesExporters: setting('OTEL_TRACES_EXPORTER', traceExporters),
  otlpEndpoint: setting('OTEL_EXPORTER_OTLP_ENDPOINT', httpUrl),
  otlpTracesEndpoint: setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', httpUrl),
  /** OTLP over HTTP only: the gRPC exporter is not part of this service. */
  otlpProtocol: setting('OTEL_EXPORTER_OTLP_PROTOCOL', oneOf(OTLP_PROTOCOLS), 'http/protobuf'),
  otlpTracesProtocol: setting('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', oneOf(OTLP_PROTOCOLS)),
  /** Sent with every export (a vendor's API key): logged by name only. */
  otlpHeaders: setting('OTEL_EXPORTER_OTLP_HEADERS', otlpHeaders),
  otlpTracesHeaders: setting('OTEL_EXPORTER_OTLP_TRACES_HEADERS', otlpHeaders),
  /** The whole of one export, its retries included: the connection is cut then (tracing/export-deadline.ts). */
  otlpTimeoutMs: setting('OTEL_EXPORTER_OTLP_TIMEOUT', otelMs, '10000'),
  otlpTracesTimeoutMs: setting('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', otelMs),
  otlpCompression: setting('OTEL_EXPORTER_OTLP_COMPRESSION', oneOf(OTLP_COMPRESSIONS), 'none'),
  otlpTracesCompression: setting('OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', oneOf(OTLP_COMPRESSIONS)),
  /** For an https endpoint: the CA to trust, and a client certificate with its key; read at start. */
  otlpCertificate: setting('OTEL_EXPORTER_OTLP_CERTIFICATE', certificateFile),
  otlpTracesCertificate: setting('OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE', certificateFile),
  otlpClientCertificate: setting('OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE', certificateFile),
  otlpTracesClientCertificate: setting('OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE', certificateFile),
  otlpClientKey: setting('OTEL_EXPORTER_OTLP_CLIENT_KEY', privateKeyFile),
  otlpTracesClientKey: setting('OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY', privateKeyFile),
  /** Unset: a `service.name` in OTEL_RESOURCE_ATTRIBUTES, else `plant-store`. */
  otelServiceName: setting('OTEL_SERVICE_NAME', text),
  otelResourceAttributes: setting('OTEL_RESOURCE_ATTRIBUTES', resourceAttributes),
  tracesSampler: setting('OTEL_TRACES_SAMPLER', oneOf(TRACES_SAMPLERS), 'parentbased_always_on'),
  /** The ratio of the traceidratio samplers. */
  tracesSamplerArg: setting('OTEL_TRACES_SAMPLER_ARG', ratio, '1'),
  /** W3C trace context only: a caller's baggage is never read, so never passed on. */
  otelPropagators: setting('OTEL_PROPAGATORS', propagators, 'tracecontext'),
  /** The batch span processor: none may be 0 (a batch of 0 spans is exported forever). */
  bspMaxQueueSize: setting('OTEL_BSP_MAX_QUEUE_SIZE', otelSize, '2048'),
  /** Unset: 512, or the queue's size when that is smaller. */
  bspMaxExportBatchSize: setting('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', otelSize),
  bspScheduleDelayMs: setting('OTEL_BSP_SCHEDULE_DELAY', otelMs, '5000'),
  bspExportTimeoutMs: setting('OTEL_BSP_EXPORT_TIMEOUT', otelMs, '30000'),
  /** Span limits: a span-specific one wins over the general OTEL_ATTRIBUTE_* one. */
  attributeValueLengthLimit: setting('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', otelCount),
  attributeCountLimit: setting('OTEL_ATTRIBUTE_COUNT_LIMIT', otelCount, '128'),
  spanAttributeValueLengthLimit: setting('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', otelCount),
  spanAttributeCountLimit: setting('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', otelCount),
  spanEventCountLimit: setting('OTEL_SPAN_EVENT_COUNT_LIMIT', otelCount, '128'),
  spanLinkCountLimit: setting('OTEL_SPAN_LINK_COUNT_LIMIT', otelCount, '128'),
  eventAttributeCountLimit: setting('OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT', otelCount, '128'),
  linkAttributeCountLimit: setting('OTEL_LINK_ATTRIBUTE_COUNT_LIMIT', otelCount, '128'),
  /** The SDK's own diagnostics at this level and above go to the log, one line each. */
  otelLogLevel: setting('OTEL_LOG_LEVEL', oneOf(OTEL_LOG_LEVELS), 'warn'),
  /** `true` turns tracing off whatever else is set. */
  otelSdkDisabled: setting('OTEL_SDK_DISABLED', trueFalse, 'false'),
};
