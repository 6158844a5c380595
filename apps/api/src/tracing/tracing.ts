import type { Logger } from 'pino';
import type { Config } from '../config.ts';

/** What became of the spans handed to the exporter, for /metrics. */
export interface TraceExportFigures {
  /** Spans the collector accepted. */
  exported(): number;
  /** Spans not exported: the queue was full (`queueFull`), or the collector refused or did not answer. */
  dropped(): { readonly queueFull: number; readonly exportFailed: number };
}

/** Tracing as started: its figures, and the flush at the end. */
export interface Tracing {
  readonly figures: TraceExportFigures;
  /**
   * Exports what is queued and stops; resolves true once done, or false at `timeoutMs` (a collector
   * that does not answer), whatever is still queued then being lost.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

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
