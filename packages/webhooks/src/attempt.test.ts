import { createServer } from 'node:net';
import {
  BUSY_MACHINE_SLACK_MS,
  eventually,
  newSecret,
  startTestReceiver,
  type TestReceiver,
} from '@plant-store/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptDelivery, parseRetryAfter } from './attempt.ts';
import { attemptJob } from './deliveries.ts';
import { parseWebhookSecrets } from './secrets.ts';

const secret = newSecret();
const keys = parseWebhookSecrets(secret);
const body = '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}';

let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function receiverAnswering(
  status: number,
  headers: Record<string, string> = {},
): Promise<TestReceiver> {
  receiver = await startTestReceiver([secret]);
  receiver.answer = (_request, response) => {
    response.writeHead(status, headers);
    response.end('{"ignored":true}');
  };
  return receiver;
}

describe('attemptDelivery', () => {
  it('when the receiver answers 2xx, then it is delivered, signed so that standardwebhooks verifies it', async () => {
    const { url, received } = await receiverAnswering(200);
    const outcome = await attemptDelivery({ url, eventId: 'evt_1', body }, { keys, timeoutMs: 5_000 });
    expect(outcome).toStrictEqual({ kind: 'delivered', status: 200 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      id: 'evt_1',
      body,
      contentType: 'application/json',
      verifiedBy: [secret],
    });
    expect(Math.abs(Number(received[0]?.timestamp) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('when two secrets are configured (rotation), then a receiver knowing either one verifies it', async () => {
    const [old, next] = [newSecret(), newSecret()];
    receiver = await startTestReceiver([old, next]);
    await attemptDelivery(
      { url: receiver.url, eventId: 'evt_2', body },
      { keys: parseWebhookSecrets(`${old} ${next}`), timeoutMs: 5_000 },
    );
    expect(receiver.received[0]?.verifiedBy).toStrictEqual([old, next]);
  });

  it('when the body or the id is changed on the way, then the signature does not verify', async () => {
    const { url, received } = await receiverAnswering(204);
    const other = await startTestReceiver([newSecret()]);
    try {
      await attemptDelivery({ url: other.url, eventId: 'evt_3', body }, { keys, timeoutMs: 5_000 });
      expect(other.received[0]?.verifiedBy).toStrictEqual([]);
    } finally {
      await other.close();
    }
    await attemptDelivery({ url, eventId: 'evt_3', body }, { keys, timeoutMs: 5_000 });
    expect(received[0]?.verifiedBy).toStrictEqual([secret]);
  });

  it.each([500, 400, 404, 301])('when the receiver answers %i, then the attempt failed', async (status) => {
    const { url } = await receiverAnswering(status, { location: 'http://127.0.0.1:1/elsewhere' });
    await expect(
      attemptDelivery({ url, eventId: 'e', body }, { keys, timeoutMs: 5_000 }),
    ).resolves.toStrictEqual({
      kind: 'failed',
      status,
      reason: `answered ${status}`,
      errorType: String(status),
    });
  });

  it('when the receiver redirects, then the redirect is not followed', async () => {
    const target = await startTestReceiver([secret]);
    try {
      const { url, received } = await receiverAnswering(307, { location: target.url });
      const outcome = await attemptDelivery({ url, eventId: 'e', body }, { keys, timeoutMs: 5_000 });
      expect(outcome.kind).toBe('failed');
      expect(received).toHaveLength(1);
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('when the URL carries a user and a password, then they are sent as Basic authorization, with the host and the query', async () => {
    receiver = await startTestReceiver([secret]);
    const seen: { host: string | undefined; authorization: string | undefined; url: string | undefined }[] =
      [];
    receiver.answer = (request, response) => {
      seen.push({
        host: request.headers.host,
        authorization: request.headers.authorization,
        url: request.url,
      });
      response.writeHead(204).end();
    };
    const url = new URL(receiver.url);
    url.username = 'hook%40plants';
    url.password = 'p%3Ass';
    url.search = '?token=abc';
    const outcome = await attemptDelivery(
      { url: url.href, eventId: 'evt_auth', body },
      { keys, timeoutMs: 5_000 },
    );
    expect(outcome).toStrictEqual({ kind: 'delivered', status: 204 });
    expect(seen).toStrictEqual([
      {
        host: url.host,
        authorization: `Basic ${Buffer.from('hook@plants:p:ss').toString('base64')}`,
        url: `${url.pathname}?token=abc`,
      },
    ]);
    expect(receiver.verified()).toHaveLength(1);
  });

  it('when the receiver answers 410, then it is gone', async () => {
    const { url } = await receiverAnswering(410);
    await expect(
      attemptDelivery({ url, eventId: 'e', body }, { keys, timeoutMs: 5_000 }),
    ).resolves.toStrictEqual({
      kind: 'gone',
      status: 410,
    });
  });

  it.each([429, 503])(
    'when the receiver answers %i with Retry-After, then the wait is kept',
    async (status) => {
      const { url } = await receiverAnswering(status, { 'retry-after': '120' });
      await expect(
        attemptDelivery({ url, eventId: 'e', body }, { keys, timeoutMs: 5_000 }),
      ).resolves.toStrictEqual({
        kind: 'failed',
        status,
        reason: `answered ${status}`,
        errorType: String(status),
        retryAfterMs: 120_000,
      });
    },
  );

  it('when a 500 carries Retry-After, then it is not taken (only 429 and 503)', async () => {
    const { url } = await receiverAnswering(500, { 'retry-after': '120' });
    const outcome = await attemptDelivery({ url, eventId: 'e', body }, { keys, timeoutMs: 5_000 });
    expect(outcome).not.toHaveProperty('retryAfterMs');
  });

  it('when the receiver never answers, then the attempt fails at its timeout, no sooner', async () => {
    const timeoutMs = 300;
    receiver = await startTestReceiver([secret]);
    receiver.answer = () => {};
    const started = performance.now();
    const outcome = await attemptDelivery({ url: receiver.url, eventId: 'e', body }, { keys, timeoutMs });
    const waited = performance.now() - started;
    expect(outcome).toStrictEqual({ kind: 'failed', reason: 'no answer in time', errorType: 'timeout' });
    // A timer counts from the event loop's clock, which may lag the test's by a few milliseconds.
    expect(waited, 'failed no sooner than its timeout').toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(waited, 'failed at its timeout, give or take a busy machine').toBeLessThan(
      timeoutMs + BUSY_MACHINE_SLACK_MS,
    );
  });

  it('when the signal aborts while the receiver has not answered, then the request is cut off and the attempt is abandoned', async () => {
    receiver = await startTestReceiver([secret]);
    let cutOff = false;
    receiver.answer = (_request, response) => void response.once('close', () => (cutOff = true));
    const stopping = new AbortController();
    const outcome = attemptDelivery(
      { url: receiver.url, eventId: 'e', body },
      { keys, timeoutMs: 600_000, signal: stopping.signal },
    );
    await eventually(() => receiver?.received.length === 1, 'the request reached the receiver');
    stopping.abort();
    await expect(outcome).resolves.toStrictEqual({ kind: 'abandoned' });
    await eventually(() => cutOff, 'the receiver saw the connection close');
  });

  it('when the signal is already aborted, then nothing is sent', async () => {
    const { url, received } = await receiverAnswering(200);
    const outcome = await attemptDelivery(
      { url, eventId: 'e', body },
      { keys, timeoutMs: 5_000, signal: AbortSignal.abort() },
    );
    expect(outcome).toStrictEqual({ kind: 'abandoned' });
    expect(received).toHaveLength(0);
  });

  it('when nothing listens, then the attempt fails naming the refusal', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const outcome = await attemptDelivery(
      { url: `http://127.0.0.1:${port}/`, eventId: 'e', body },
      { keys, timeoutMs: 5_000 },
    );
    expect(outcome).toStrictEqual({ kind: 'failed', reason: 'ECONNREFUSED', errorType: 'ECONNREFUSED' });
  });
});

describe('attemptJob with no tracing registered', () => {
  it('when the job carries the trace context of its create, then the request still carries only the signed headers', async () => {
    receiver = await startTestReceiver([secret]);
    const headers: string[][] = [];
    receiver.answer = (request, response) => {
      headers.push(Object.keys(request.headers).sort());
      response.writeHead(204).end();
    };
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const step = await attemptJob(
      { urls: [receiver.url], keys, schedule: [], timeoutMs: 5_000 },
      {
        eventId: 'evt_untraced',
        url: receiver.url,
        body,
        recordedAt: new Date().toISOString(),
        attempt: 0,
        traceContext: { traceparent, tracestate: 'store=plants' },
      },
      { delivered: () => {}, attemptFailed: () => {}, gone: () => {}, dead: () => {}, abandoned: () => {} },
    );
    expect(step).toStrictEqual({ kind: 'done' });
    expect(headers).toStrictEqual([
      [
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ],
    ]);
    expect(receiver.received[0]?.traceparent).toBeUndefined();
    expect(receiver.verified()).toHaveLength(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates, and nothing else', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
