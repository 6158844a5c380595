import type { Logger } from 'pino';
import type { TraceExporter } from '../config/otel-values.ts';
import type { Config } from '../config.ts';
import type { Tracing } from './node-sdk.ts';

// The rest of the app knows tracing by this module alone; a type import of node-sdk.ts loads nothing.
export type { TraceExportFigures, Tracing } from './node-sdk.ts';

/**
 * Where spans go: OTEL_TRACES_EXPORTER's exporters; unset, OTLP when an endpoint is set and nowhere
 * otherwise (not the specification's localhost:4318, which a service with nothing set would try for
 * ever). None when OTEL_SDK_DISABLED says so.
 */
export function traceExportersOf(config: Config): readonly TraceExporter[] {
  if (config.otelSdkDisabled) return [];
  if (config.tracesExporters !== undefined) return config.tracesExporters;
  return (config.otlpTracesEndpoint ?? config.otlpEndpoint) !== undefined ? ['otlp'] : [];
}

/**
 * Starts the OpenTelemetry Node SDK when tracing is wanted. Otherwise nothing is loaded: the spans the
 * code makes through @opentelemetry/api stay the API's no-ops.
 */
export async function startTracing(config: Config, logger: Logger): Promise<Tracing | undefined> {
  const exporters = traceExportersOf(config);
  if (exporters.length === 0) return undefined;
  const { startNodeTracing } = await import('./node-sdk.ts');
  return startNodeTracing(config, logger, exporters);
}
