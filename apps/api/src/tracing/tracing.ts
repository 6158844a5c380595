import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Tracing } from './node-sdk.ts';

// The rest of the app knows tracing by this module alone; a type import of node-sdk.ts loads nothing.
export type { TraceExportFigures, Tracing } from './node-sdk.ts';

/** Tracing is on when an OTLP endpoint is set, unless OTEL_SDK_DISABLED says otherwise. */
export function tracingWanted(config: Config): boolean {
  return !config.otelSdkDisabled && (config.otlpTracesEndpoint ?? config.otlpEndpoint) !== undefined;
}

/**
 * Starts the OpenTelemetry Node SDK when tracing is wanted. Otherwise nothing is loaded: the spans the
 * code makes through @opentelemetry/api stay the API's no-ops.
 */
export async function startTracing(config: Config, logger: Logger): Promise<Tracing | undefined> {
  if (!tracingWanted(config)) return undefined;
  const { startNodeTracing } = await import('./node-sdk.ts');
  return startNodeTracing(config, logger);
}
