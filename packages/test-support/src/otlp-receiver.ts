import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { ExportTraceServiceResponse } from './otlp-proto.ts';
import { decodeJsonRequest, decodeProtobufRequest, type ReceivedSpan } from './otlp-spans.ts';
import { spanTree } from './span-tree.ts';

/**
 * How the receiver answers an export: 200, never (the request is read, the socket held), 200 with a
 * body that never ends (a byte every DRIBBLE_EVERY_MS: slow, yet never idle long enough for a socket
 * timeout), or a status, with a Retry-After header when `retryAfterSeconds` is given (a collector
 * shedding load sends one).
 */
export type OtlpBehaviour =
  | 'accept'
  | 'hang'
  | 'dribble'
  | { readonly status: number; readonly retryAfterSeconds?: number };

const DRIBBLE_EVERY_MS = 100;

/** One POST /v1/traces that decoded, whatever it was answered. */
export interface ReceivedExport {
  readonly encoding: 'protobuf' | 'json';
  readonly headers: IncomingHttpHeaders;
  readonly spans: ReceivedSpan[];
  /** The status it was answered with (200 when accepted); undefined when it was held unanswered. */
  readonly status: number | undefined;
  /**
   * Held open ('hang', 'dribble'): ms from its arrival until the exporter closed the connection;
   * undefined while it is open, and for an export answered in full.
   */
  readonly givenUpAfterMs: number | undefined;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it; exporters given a full URL add /v1/traces. */
  readonly url: string;
  readonly exports: ReceivedExport[];
  /** The spans of the accepted exports, in the order received. */
  spans(): ReceivedSpan[];
  /**
   * Resolves with spans() once `predicate` holds of them, checked on every accepted export; rejects,
   * showing the spans received so far, after `timeoutMs` or when the receiver closes.
   */
  waitForSpans(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** The same over every export received, whatever it was answered; checked whenever one arrives or is given up. */
  waitForExports(
    predicate: (exports: ReceivedExport[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedExport[]>;
  /** Connections from exporters open now, and the most that were ever open at once. */
  connections(): { readonly open: number; readonly most: number };
  /** How the next exports are answered; 'accept' to begin with. */
  behaviour: OtlpBehaviour;
  /** Stops listening and destroys every connection, held ones too. */
  close(): Promise<void>;
}

// Below vitest's test timeout, so that a test that waits in vain fails with the spans it got.
const DEFAULT_WAIT_MS = 20_000;

const ENCODINGS = {
  'application/x-protobuf': { encoding: 'protobuf', decode: decodeProtobufRequest },
  'application/json': { encoding: 'json', decode: decodeJsonRequest },
} as const;

const gunzipAsync = promisify(gunzip);

const EMPTY_RESPONSE = {
  protobuf: ExportTraceServiceResponse.encode({}).finish(),
  json: new TextEncoder().encode('{}'),
};

/**
 * An OTLP/HTTP trace receiver on a free port (of 127.0.0.1 unless `host` says otherwise), for tests
 * of what the real exporters send: POST /v1/traces in protobuf or JSON, gzipped or not; anything else
 * is answered 4xx with the reason as text.
 */
export async function startOtlpReceiver(options: { host?: string } = {}): Promise<OtlpReceiver> {
  const host = options.host ?? '127.0.0.1';
  const exports: ReceivedExport[] = [];
  const refusals: string[] = [];
  const waiters = new Set<{ check: () => void; fail: (reason: string) => void }>();
  const checkWaiters = () => {
    for (const waiter of waiters) waiter.check();
  };
  // A dribbled export is answered 200 but never to its end: its spans were not taken.
  const dribbled = new WeakSet<ReceivedExport>();
  const accepted = () =>
    exports.flatMap((entry) => (entry.status === 200 && !dribbled.has(entry) ? entry.spans : []));
  const connections = { open: 0, most: 0 };
  // Connections the receiver drops as it closes were not given up by the exporter.
  let closing = false;

  const refuse = (
    response: ServerResponse,
    status: number,
    reason: string,
    headers: Record<string, string> = {},
  ) => {
    refusals.push(`${status} ${reason}`);
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(reason);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const { pathname } = new URL(request.url ?? '/', 'http://receiver');
    if (pathname !== '/v1/traces') return refuse(response, 404, `no ${pathname} here, only /v1/traces`);
    if (request.method !== 'POST') {
      return refuse(response, 405, `${request.method} /v1/traces: only POST`, { allow: 'POST' });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const format = Object.hasOwn(ENCODINGS, mediaType)
      ? ENCODINGS[mediaType as keyof typeof ENCODINGS]
      : undefined;
    if (format === undefined) return refuse(response, 415, `content-type ${mediaType || 'missing'}`);
    const contentEncoding = request.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
    if (contentEncoding !== 'identity' && contentEncoding !== 'gzip') {
      return refuse(response, 415, `content-encoding ${contentEncoding}`);
    }
    let spans: ReceivedSpan[];
    try {
      const raw = Buffer.concat(chunks);
      spans = format.decode(contentEncoding === 'gzip' ? await gunzipAsync(raw) : raw);
    } catch (error) {
      return refuse(response, 400, `undecodable ${format.encoding} body: ${(error as Error).message}`);
    }
    const { behaviour } = receiver;
    const arrived = performance.now();
    const status =
      behaviour === 'accept' || behaviour === 'dribble'
        ? 200
        : behaviour === 'hang'
          ? undefined
          : behaviour.status;
    const entry: { -readonly [Key in keyof ReceivedExport]: ReceivedExport[Key] } = {
      encoding: format.encoding,
      headers: request.headers,
      spans,
      status,
      givenUpAfterMs: undefined,
    };
    exports.push(entry);
    if (behaviour === 'hang' || behaviour === 'dribble') {
      response.on('close', () => {
        if (closing) return;
        entry.givenUpAfterMs = Math.round(performance.now() - arrived);
        checkWaiters();
      });
    }
    if (behaviour === 'dribble') {
      dribbled.add(entry);
      response.writeHead(200, { 'content-type': mediaType });
      const dribbling = setInterval(() => response.write(Buffer.of(0)), DRIBBLE_EVERY_MS);
      response.on('close', () => clearInterval(dribbling));
    } else if (status === 200) {
      response.writeHead(200, { 'content-type': mediaType }).end(EMPTY_RESPONSE[format.encoding]);
    } else if (status !== undefined) {
      const retryAfter = typeof behaviour === 'object' ? behaviour.retryAfterSeconds : undefined;
      response.writeHead(status, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }).end();
    }
    checkWaiters();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A client that gives up mid-body (its export timed out) leaves nothing to answer.
      if (request.destroyed || response.headersSent) return;
      refuse(response, 500, String(error));
    });
  });
  server.on('connection', (socket) => {
    connections.open += 1;
    connections.most = Math.max(connections.most, connections.open);
    socket.once('close', () => {
      connections.open -= 1;
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  /** Resolves with what `current` gives once `predicate` holds of it; rejects as waitForSpans says. */
  function waitFor<Item>(
    what: string,
    current: () => Item[],
    predicate: (items: Item[]) => boolean,
    timeoutMs = DEFAULT_WAIT_MS,
  ): Promise<Item[]> {
    const { promise, resolve, reject } = Promise.withResolvers<Item[]>();
    const done = () => {
      clearTimeout(timer);
      waiters.delete(waiter);
    };
    const waiter = {
      check() {
        try {
          const items = current();
          if (!predicate(items)) return;
          done();
          resolve(items);
        } catch (error) {
          done();
          reject(error);
        }
      },
      fail(reason: string) {
        done();
        const spans = accepted();
        const others = exports
          .filter((entry) => entry.status !== 200 || dribbled.has(entry))
          .map((entry) =>
            entry.givenUpAfterMs === undefined
              ? (entry.status ?? 'held')
              : `given up after ${entry.givenUpAfterMs} ms`,
          );
        reject(
          new Error(
            [
              `the awaited ${what} did not arrive: ${reason}; ${spans.length} spans accepted:`,
              spanTree(spans),
              ...(others.length > 0 ? [`exports not accepted, answered: ${others.join(', ')}`] : []),
              ...(refusals.length > 0 ? [`requests refused: ${refusals.join('; ')}`] : []),
            ].join('\n'),
          ),
        );
      },
    };
    const timer = setTimeout(() => waiter.fail(`not within ${timeoutMs} ms`), timeoutMs);
    waiters.add(waiter);
    waiter.check();
    return promise;
  }

  const receiver: OtlpReceiver = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    exports,
    spans: accepted,
    behaviour: 'accept',
    waitForSpans: (predicate, timeoutMs) => waitFor('spans', accepted, predicate, timeoutMs),
    waitForExports: (predicate, timeoutMs) => waitFor('exports', () => [...exports], predicate, timeoutMs),
    connections: () => ({ ...connections }),
    async close() {
      closing = true;
      for (const waiter of waiters) waiter.fail('the receiver closed');
      if (!server.listening) return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
  return receiver;
}
