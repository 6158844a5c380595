import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request as a receiver got it, checked with the `standardwebhooks` package (not our code). */
export interface Received {
  readonly id: string;
  readonly timestamp: string;
  readonly body: string;
  readonly contentType: string | undefined;
  /** The W3C trace context the delivery carried, when tracing was on. */
  readonly traceparent: string | undefined;
  /** The W3C baggage it carried, if any: a service never passes a caller's on. */
  readonly baggage: string | undefined;
  /** The secrets (of those the receiver knows) that verified its signature. */
  readonly verifiedBy: readonly string[];
  readonly path: string;
}

export interface TestReceiver {
  readonly url: string;
  readonly received: Received[];
  /** Every delivery that verified, by webhook-id. */
  verified(): Received[];
  /** How the next requests are answered; default 204. */
  answer: (request: IncomingMessage, response: ServerResponse) => void;
  /** Stops listening and drops its connections: attempts are refused, as by a receiver that is down. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A bare node:http webhook receiver that verifies what it gets with `standardwebhooks`. On 127.0.0.2
 * by default: apps/api's tests check every answer from 127.0.0.1 against the published API document,
 * and a receiver's answers are not the service's.
 */
export async function startTestReceiver(
  secrets: readonly string[],
  host = '127.0.0.2',
): Promise<TestReceiver> {
  const verifiers = secrets.map((secret) => ({ secret, webhook: new Webhook(secret) }));
  const received: Received[] = [];
  let port = 0;
  const receiver: TestReceiver = {
    url: '',
    received,
    verified: () => received.filter((entry) => entry.verifiedBy.length > 0),
    answer: (_request, response) => {
      response.statusCode = 204;
      response.end();
    },
    goDown: async () => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
    comeBack: async () => {
      server.listen(port, host);
      await once(server, 'listening');
    },
    close: async () => {
      if (!server.listening) return;
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const verifiedBy = verifiers.flatMap(({ secret, webhook }) => {
      try {
        webhook.verify(body, headers);
        return [secret];
      } catch {
        return [];
      }
    });
    received.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      body,
      contentType: request.headers['content-type'],
      traceparent: request.headersDistinct.traceparent?.join(', '),
      baggage: request.headersDistinct.baggage?.join(', '),
      verifiedBy,
      path: request.url ?? '',
    });
    receiver.answer(request, response);
  });
  server.listen(0, host);
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, { url: `http://${host}:${port}/hooks` });
}

/** A fresh Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
