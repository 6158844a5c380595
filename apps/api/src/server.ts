// The server's life: listening for the composed service (compose.ts), and the stop with its one budget.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { hardenServer } from '@plant-store/http-hardening';
import type { Service } from './compose.ts';
import type { Config } from './config.ts';
import { closingShareMs, finishBy } from './stop-budget.ts';

export interface RunningServer {
  /** The base URL clients reach, e.g. http://127.0.0.1:3000. */
  readonly url: string;
  readonly port: number;
  /** Stops taking connections, lets requests in flight finish, then closes what the service holds. Idempotent. */
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

function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Closes what the service holds, in its order: each step until `stopBy`, work under way until `workBy`. */
async function closeService(service: Service, workBy: number, stopBy: number): Promise<void> {
  for (const step of service.stopSteps) {
    await finishBy(step.close(workBy), stopBy, step.what, service.logger);
  }
}

/**
 * Serves the service on config.host and config.port (0: any free port) until stop(). When it
 * cannot listen, it closes what the service holds and rejects.
 */
export async function serve(config: Config, service: Service): Promise<RunningServer> {
  const { logger } = service;
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
  const hardened = hardenServer(server, service.app.callback(), {
    logger,
    maxConnections: config.maxConnections,
    maxConnectionsName: 'MAX_CONNECTIONS',
    sendTimeoutMs: config.sendTimeoutMs,
  });

  try {
    await listen(server, config);
  } catch (error) {
    hardened.stop();
    const now = performance.now();
    await closeService(service, now, now + config.shutdownTimeoutMs);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = urlOf(config.host, port);
  // On a wildcard address (0.0.0.0 in the image) the URL alone would read as the only address served.
  const listeningOn = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const { maxConnections, openFilesLimit } = hardened;
  logger.info(
    { listeningOn, url, storage: config.database.kind, maxConnections, openFilesLimit },
    'listening',
  );

  const shutDown = async (): Promise<void> => {
    service.beginStopping();
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
      await sleep(config.shutdownGraceMs);
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
    hardened.stop();
    await closeService(service, workBy, stopBy);
    logger.info('stopped');
  };
  let stopped: Promise<void> | undefined;
  return { url, port, stop: () => (stopped ??= shutDown()) };
}
