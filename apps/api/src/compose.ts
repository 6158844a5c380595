// The composition root: the service's parts, made from its configuration over the storage it opened.
// A start (start.ts) and the tests compose through these same functions; server.ts serves the result.
import type Koa from 'koa';
import { type DestinationStream, type Logger, pino } from 'pino';
import { createApp } from './app.ts';
import { configuredCredentials } from './auth/configured-credentials.ts';
import type { Config } from './config.ts';
import type { AppState } from './http/app-state.ts';
import { createMetrics } from './metrics/metrics.ts';
import { type OpenedStorage, openStorage } from './storage-adapters.ts';
import type { TraceExportFigures } from './tracing/tracing.ts';
import { startWebhookDelivery } from './webhooks.ts';

export interface ComposeOptions {
  /** Where the JSON log lines go; standard output when absent. */
  readonly logDestination?: DestinationStream;
  /** The trace exporter's figures for /metrics, when tracing is on (main.ts starts it). */
  readonly traceExport?: TraceExportFigures | undefined;
}

/** A part of the service to close once the server serves no more, as one step of the stop. */
export interface StopStep {
  /** What the warning names when the step does not end by the deadline. */
  readonly what: string;
  /** `workBy` (a performance.now() time): until when work under way may go on. */
  close(workBy: number): Promise<void> | undefined;
}

/** The service as composed: not yet listening. */
export interface Service {
  readonly app: Koa<AppState>;
  readonly logger: Logger;
  /** From now on /readyz answers 503 and every answer closes its connection. */
  beginStopping(): void;
  /** What the service holds, in the order it is closed; the storage last. */
  readonly stopSteps: readonly StopStep[];
}

/** Opens the storage DATABASE_URL names, running its migrations, with what the configuration asks of it. */
export function openConfiguredStorage(config: Config): Promise<OpenedStorage> {
  return openStorage(config.database, {
    groupCommit: config.groupCommit,
    preparedStatements: config.preparedStatements,
    events: config.webhookUrls !== undefined,
    maxEventsInMemory: config.webhookMemoryBacklog,
  });
}

/**
 * Composes the service over an opened storage, which it then owns: the webhook delivery, the
 * credentials, the metrics and the app. A storage that fails to start its webhooks is closed.
 */
export async function composeService(
  config: Config,
  opened: OpenedStorage,
  options: ComposeOptions = {},
): Promise<Service> {
  const logger = pino({ level: config.logLevel }, options.logDestination);
  const { storage } = opened;
  const webhooks = await startWebhookDelivery(config, opened, logger).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
  const { checker: credentials, jwtKeys } = configuredCredentials(config, logger);
  if (!credentials.configured)
    logger.warn('no API token is configured: every request that needs one answers 401');
  // Not awaited: the service starts while the provider is down, and /readyz says 503 until the keys come.
  void jwtKeys?.start();

  let stopping = false;
  // A plant stored for the first time wakes the webhook's relay: its event goes now, not at the next tick.
  const dispatcher = webhooks?.dispatcher;
  const app = createApp({
    storage,
    onPlantCreated: dispatcher && (() => dispatcher.kick()),
    credentials,
    bodyLimit: config.bodyLimit,
    corsOrigins: config.corsOrigins,
    logger,
    isShuttingDown: () => stopping,
    metrics: createMetrics({
      connectionPool: opened.connectionPool,
      processMetrics: true,
      jwtKeys,
      webhooks,
      traceExport: options.traceExport,
    }),
  });

  const stopSteps: StopStep[] = [];
  if (jwtKeys !== undefined) {
    stopSteps.push({ what: 'stopping the key refresh', close: () => void jwtKeys.stop() });
  }
  if (dispatcher !== undefined) {
    // Attempts still under way at workBy are abandoned; they stay queued and are made again later.
    stopSteps.push({
      what: 'stopping the webhook delivery',
      close: (workBy) => dispatcher.stop(Math.max(0, workBy - performance.now())),
    });
  }
  // A statement that hangs (a lock, a silent network) would hold the close until its timeout.
  stopSteps.push({ what: 'closing the storage', close: () => storage.close() });
  return {
    app,
    logger,
    beginStopping: () => {
      stopping = true;
    },
    stopSteps,
  };
}
