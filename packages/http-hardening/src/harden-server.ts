import type { RequestListener, Server } from 'node:http';
import { answerClientError } from './connection/client-error.ts';
import {
  capConnections,
  connectionCap,
  openFilesLimit,
  RESERVED_DESCRIPTORS,
} from './connection/connection-limit.ts';
import { errorBodyAnswer, type FormatRawAnswer, writeRawAnswer } from './connection/raw-answer.ts';
import { watchSendDeadline } from './connection/send-deadline.ts';
import { inConnectionTurns } from './connection/turns.ts';
import type { HardeningLogger } from './logger.ts';

/** How long an answer may wait unsent for a client that does not read it, unless told otherwise. */
export const DEFAULT_SEND_TIMEOUT_MS = 60_000;

export interface HardenServerOptions {
  /** Where cut-offs, dropped connections and refusals are said: pino's logger, or any `{ info, warn }`. */
  readonly logger: HardeningLogger;
  /**
   * Open connections at most; one over it is closed as soon as it is accepted, unanswered. `'auto'` (the
   * default): the process's open files limit less `reservedDescriptors`. `Infinity`: no cap.
   */
  readonly maxConnections?: number | 'auto';
  /** What `'auto'` leaves of the open files limit to the process's own files and connections. Default 128. */
  readonly reservedDescriptors?: number;
  /** How log lines name the cap: the setting an operator would change. Default `'maxConnections'`. */
  readonly maxConnectionsName?: string;
  /**
   * A connection whose answer has waited this long unsent (the client does not read) is cut off, within a
   * quarter more. Default 60,000 ms.
   */
  readonly sendTimeoutMs?: number;
  /** The body of the answers written straight to a socket (parser refusals, CONNECT). Default `errorBodyAnswer`. */
  readonly formatRawAnswer?: FormatRawAnswer;
}

export interface HardenedServer {
  /** The cap applied to the server; undefined: none. */
  readonly maxConnections: number | undefined;
  /** The process's open files limit, as read; undefined: unlimited. */
  readonly openFilesLimit: number | undefined;
  /** Stops the send deadline's sweep. It stops by itself once the server closes: this is for one that never listened. */
  stop(): void;
}

function checkOptions(options: HardenServerOptions): void {
  const { maxConnections, reservedDescriptors, sendTimeoutMs } = options;
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 1;
  if (
    maxConnections !== undefined &&
    maxConnections !== 'auto' &&
    maxConnections !== Number.POSITIVE_INFINITY
  )
    if (!whole(maxConnections))
      throw new RangeError(
        `hardenServer: maxConnections must be 'auto', Infinity or a whole number >= 1, not ${maxConnections}`,
      );
  if (
    reservedDescriptors !== undefined &&
    !(Number.isSafeInteger(reservedDescriptors) && reservedDescriptors >= 0)
  )
    throw new RangeError(
      `hardenServer: reservedDescriptors must be a whole number, not ${reservedDescriptors}`,
    );
  // setInterval takes no period above 2^31 - 1 ms (it would sweep every millisecond instead).
  if (sendTimeoutMs !== undefined && !(whole(sendTimeoutMs) && sendTimeoutMs <= 2 ** 31 - 1))
    throw new RangeError(
      `hardenServer: sendTimeoutMs must be a whole number of ms from 1 to 2^31 - 1, not ${sendTimeoutMs}`,
    );
}

/**
 * Applies the server-level parts to a node:http server created without a request listener, and
 * serves `listener` (a Koa app's `callback()`) through them:
 *
 * - requests pipelined on one connection run one after the other, never one that cannot be answered,
 *   and a connection is not read further while MAX_WAITING of its requests wait (turns.ts);
 * - requests with `Expect` go to `listener` too: `checkRequestHead` answers one other than
 *   100-continue, and `jsonBody` (or `allowBody`) sends 100 Continue once the request is acceptable;
 * - bytes the parser refuses get an answer (400, 408, 431, 505) after the requests before them;
 * - open connections are capped below the open files limit;
 * - a connection whose answer waits unsent for `sendTimeoutMs` is cut off;
 * - CONNECT is answered 400: the server is not a proxy.
 */
export function hardenServer(
  server: Server,
  listener: RequestListener,
  options: HardenServerOptions,
): HardenedServer {
  checkOptions(options);
  if (server.listenerCount('request') > 0)
    throw new Error(
      'hardenServer: the server already has a request listener; create it without one and pass the listener to hardenServer, so that requests take turns',
    );
  const { logger } = options;
  const format = options.formatRawAnswer ?? errorBodyAnswer;
  const handle = inConnectionTurns(listener);
  server.on('request', handle);
  server.on('checkContinue', handle);
  server.on('checkExpectation', handle);
  server.on('clientError', answerClientError(logger, format));

  const openFiles = openFilesLimit();
  const reserved = options.reservedDescriptors ?? RESERVED_DESCRIPTORS;
  const maxConnections = connectionCap(options.maxConnections ?? 'auto', openFiles, reserved);
  const name = options.maxConnectionsName ?? 'maxConnections';
  capConnections(server, maxConnections, logger, name);
  if (maxConnections !== undefined && openFiles !== undefined && maxConnections > openFiles - reserved) {
    logger.warn(
      { maxConnections, openFilesLimit: openFiles },
      `${name} leaves too few of the open files limit to the process's own files and connections: once connections use them up, opening one fails (EMFILE)`,
    );
  }
  const stop = watchSendDeadline(server, options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS, logger);
  // CONNECT asks for a tunnel: Node would close the connection without a word.
  server.on('connect', (_req, socket) => {
    logger.info({ method: 'CONNECT', status: 400 }, 'CONNECT refused');
    writeRawAnswer(
      socket,
      { status: 400, message: 'CONNECT is not supported: this service is not a proxy' },
      format,
    );
  });
  return { maxConnections, openFilesLimit: openFiles, stop };
}
