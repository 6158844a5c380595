import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlantStorage } from '@plant-store/domain';
import { hardenServer } from '@plant-store/http-hardening';
import type { ConnectionPoolStats } from '@plant-store/storage-postgres';
import { type DestinationStream, pino } from 'pino';
import { createApp } from './app.ts';
import { configuredCredentials } from './auth/configured-credentials.ts';
import type { Config } from './config.ts';
import { createMetrics } from './metrics/metrics.ts';
import { closingShareMs, finishBy } from './stop-budget.ts';
import { openStorage, type StartWebhooks, startMemoryWebhooks } from './storage-adapters.ts';
import type { TraceExportFigures } from './tracing/tracing.ts';
import { startWebhookDelivery, type WebhookFigures } from './webhooks.ts';

export interface StartOptions {
  /** Where the JSON log lines go; standard output when absent. */
  readonly logDestination?: DestinationStream;
  /** A storage to use instead of opening config.database (tests, embedding); stop() closes it too. */
  readonly storage?: PlantStorage;
  /** The figures of that storage's connection pool, for /metrics. */
  readonly connectionPool?: (() => ConnectionPoolStats) | undefined;
  /** How that storage's events are delivered when WEBHOOK_URLS is set; default: in this process's memory. */
  readonly startWebhooks?: StartWebhooks | undefined;
  /** The trace exporter's figures for /metrics, when tracing is on (main.ts starts it). */
  readonly traceExport?: TraceExportFigures | undefined;
  /** How the SHUTDOWN_GRACE_MS is waited; default a timer (tests hold the grace open with their own). */
  readonly waitGrace?: ((ms: number) => Promise<void>) | undefined;
}

export interface RunningServer {
  /** The base URL clients reach, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  readonly port: number;
  /** Stops taking connections, lets requests in flight finish, then closes storage. Idempotent. */
  stop(): Promise<void>;
}

// Node checks the headers and request timeouts of every connection this often: a quarter of the
// shorter one, so that a slow client is cut off at most 25% late.
function checkingIntervalOf(config: Config): number {
  return Math.max(
    25,
    Math.min(5_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
  );
}

function urlOf(host: string, port: number): string {
  // A wildcard address is where the server listens, not where a client connects.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Opens storage (running migrations), then serves the app on config.host and config.port (0: any free port). */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = pino({ level: config.logLevel }, options.logDestination);
  const events = config.webhookUrls !== undefined;
  const given = options.storage;
  const { storage, connectionPool, startWebhooks } =
    given === undefined
      ? await openStorage(config.database, {
          groupCommit: config.groupCommit,
          preparedStatements: config.preparedStatements,
          events,
          maxEventsInMemory: config.webhookMemoryBacklog,
        })
      : {
          storage: given,
          connectionPool: options.connectionPool,
          startWebhooks:
            options.startWebhooks ??
            ((...args: Parameters<StartWebhooks>) => startMemoryWebhooks(given, ...args)),
        };
  let webhooks: WebhookFigures | undefined;
  try {
    webhooks = startWebhooks && (await startWebhookDelivery(config, startWebhooks, logger));
  } catch (error) {
    await storage.close();
    throw error;
  }
  const { checker: credentials, jwtKeys } = configuredCredentials(config, logger);
  if (!credentials.configured)
    logger.warn('no API token is configured: every request that needs one answers 401');
  // Not awaited: the service starts while the provider is down, and /readyz says 503 until the keys come.
  void jwtKeys?.start();

  let shuttingDown = false;
  // A plant stored for the first time wakes the webhook's relay: its event goes now, not at the next tick.
  const dispatcher = webhooks?.dispatcher;
  const app = createApp({
    storage,
    onPlantCreated: dispatcher && (() => dispatcher.kick()),
    credentials,
    bodyLimit: config.bodyLimit,
    logger,
    isShuttingDown: () => shuttingDown,
    metrics: createMetrics({
      connectionPool,
      processMetrics: true,
      jwtKeys,
      webhooks,
      traceExport: options.traceExport,
    }),
  });
  const server = createServer({
    // A whole request, its headers, and the pause between two requests on one connection.
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingIntervalOf(config),
    // The app answers a missing Host itself, with the JSON Error body (checkRequestHead).
    requireHostHeader: false,
  });
  // Requests in turn per connection, `Expect` to the app, the parser's refusals, the connection cap,
  // the send deadline and CONNECT (@plant-store/http-hardening).
  const hardened = hardenServer(server, app.callback(), {
    logger,
    maxConnections: config.maxConnections,
    maxConnectionsName: 'MAX_CONNECTIONS',
    sendTimeoutMs: config.sendTimeoutMs,
  });
  const { maxConnections, openFilesLimit: openFiles } = hardened;
  const stopWatchingSends = hardened.stop;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    stopWatchingSends();
    await webhooks?.dispatcher.stop();
    await storage.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = urlOf(config.host, port);
  // On a wildcard address (0.0.0.0 in the image) the URL alone would read as the only address served.
  const listeningOn = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info(
    { listeningOn, url, storage: config.database.kind, maxConnections, openFilesLimit: openFiles },
    'listening',
  );

  const shutDown = async (): Promise<void> => {
    shuttingDown = true;
    // One budget for the whole stop: the grace, requests, then webhook attempts with what remains
    // until workBy, and the closing of the delivery queue and the storage until stopBy.
    const stopBy = performance.now() + config.shutdownTimeoutMs;
    const workBy = stopBy - closingShareMs(config.shutdownTimeoutMs);
    if (config.shutdownGraceMs > 0) {
      // /readyz answers 503 from now on; a load balancer checking it stops sending here while this
      // instance still serves, so no request it sends meanwhile meets a closed port or connection.
      logger.info(
        { graceMs: config.shutdownGraceMs },
        'stopping: /readyz answers 503, serving on for the grace',
      );
      await (options.waitGrace ?? sleep)(config.shutdownGraceMs);
    }
    logger.info('stopping: draining requests in flight');
    // close() refuses new connections and ends idle ones; busy ones end after their answer,
    // which carries `Connection: close` from now on.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const deadline = setTimeout(
      () => {
        logger.warn(
          { timeoutMs: config.shutdownTimeoutMs },
          'requests still in flight at the deadline: cutting them off',
        );
        server.closeAllConnections();
      },
      Math.max(0, workBy - performance.now()),
    );
    await closed;
    clearTimeout(deadline);
    stopWatchingSends();
    jwtKeys?.stop();
    // Attempts still under way at workBy are abandoned; they stay queued and are made again later.
    const delivery = webhooks?.dispatcher.stop(Math.max(0, workBy - performance.now()));
    await finishBy(delivery, stopBy, 'stopping the webhook delivery', logger);
    // A statement that hangs (a lock, a silent network) would hold the close until its timeout.
    await finishBy(storage.close(), stopBy, 'closing the storage', logger);
    logger.info('stopped');
  };
  let stopped: Promise<void> | undefined;
  return { url, port, stop: () => (stopped ??= shutDown()) };
}
