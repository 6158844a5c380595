// Drill 3: slow and hostile clients. The server's timeouts are set short here (the defaults are
// 10 s for headers, 30 s for a whole request, 5 s of keep-alive) so the drill takes seconds.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { BUSY_MACHINE_SLACK_MS, randomPlantId } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportDrill } from '../support/drill-report.ts';
import { ms, percentile } from '../support/load.ts';
import { parseRawResponse } from '../support/raw-http.ts';
import { startTestServer, type TestServer, TOKEN } from '../support/test-server.ts';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const KEEP_ALIVE_TIMEOUT_MS = 500;
// The promises (docs/configuration.md): a slow request is cut off after its timeout, at most a quarter
// of the shorter one late (Node checks every connection that often); an idle connection is closed after
// KEEP_ALIVE_TIMEOUT_MS, to which Node adds a second of grace. A busy machine may add its slack.
const CHECK_INTERVAL_MS = Math.min(HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS) / 4;
const KEEP_ALIVE_GRACE_MS = 1_000;

const figures: Record<string, unknown> = {
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(openMemoryPlantStorage(), {
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
  });
});
afterAll(async () => {
  await server?.stop();
  reportDrill('hostile-clients', figures);
});

/** A raw connection that records what the server sends and when it closes. */
interface RawClient {
  readonly socket: Socket;
  readonly openedAt: number;
  /** Resolves with the time the server closed the connection and everything it sent. */
  readonly closed: Promise<{ at: number; text: string }>;
  /** Bytes the client managed to write before the connection closed. */
  written(): number;
}

async function openRaw(): Promise<RawClient> {
  // Before the connection exists: the server's clock for it cannot start earlier.
  const openedAt = performance.now();
  const socket = connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  let written = 0;
  const originalWrite = socket.write.bind(socket);
  socket.write = ((data: string | Uint8Array, ...rest: never[]) => {
    written += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    return originalWrite(data, ...rest);
  }) as typeof socket.write;
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<{ at: number; text: string }>((resolve) =>
    socket.once('close', () =>
      resolve({ at: performance.now(), text: Buffer.concat(chunks).toString('utf8') }),
    ),
  );
  return { socket, openedAt, closed, written: () => written };
}

/** Writes `data` a piece at a time every `everyMs` until the connection closes. */
async function trickle(client: RawClient, pieces: Iterable<string>, everyMs: number): Promise<void> {
  for (const piece of pieces) {
    if (client.socket.destroyed || !client.socket.writable) return;
    client.socket.write(piece);
    await sleep(everyMs);
  }
}

function* forever(text: string): Iterable<string> {
  for (;;) yield text;
}

/** Normal clients creating plants one after the other until done(); returns their statuses. */
async function normalTraffic(done: () => boolean): Promise<number[]> {
  const statuses: number[] = [];
  const client = async (): Promise<void> => {
    while (!done()) {
      const id = randomPlantId();
      const response = await server.createPlant(`{"id":${id},"name":"normal"}`);
      statuses.push(response.status);
      await response.arrayBuffer();
      await sleep(20);
    }
  };
  await Promise.all([client(), client()]);
  return statuses;
}

function cutOffTimes(clients: readonly RawClient[], closes: readonly { at: number }[]): number[] {
  return closes.map((close, index) => close.at - (clients[index]?.openedAt ?? 0));
}

describe('drill: slow and hostile clients', () => {
  it('when 20 slow-loris clients send their headers a byte at a time, then each is answered 408 and cut off after HEADERS_TIMEOUT_MS, while normal clients keep being served', async () => {
    const lorises = await Promise.all(Array.from({ length: 20 }, openRaw));
    for (const loris of lorises) {
      loris.socket.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nX-Slow: `);
      void trickle(loris, forever('a'), 100);
    }
    let done = false;
    const traffic = normalTraffic(() => done);
    const closes = await Promise.all(lorises.map((loris) => loris.closed));
    done = true;
    const served = await traffic;

    const times = cutOffTimes(lorises, closes);
    figures.slowLoris = {
      clients: lorises.length,
      cutOffAfterMs: {
        min: ms(Math.min(...times)),
        p50: ms(percentile(times, 50)),
        max: ms(Math.max(...times)),
      },
      normalRequestsMeanwhile: served.length,
      normalStatuses: [...new Set(served)],
    };
    for (const close of closes) expect(parseRawResponse(close.text).status).toBe(408);
    expect(Math.min(...times), 'cut off no sooner than HEADERS_TIMEOUT_MS').toBeGreaterThanOrEqual(
      HEADERS_TIMEOUT_MS,
    );
    expect(
      Math.max(...times),
      "cut off within HEADERS_TIMEOUT_MS and Node's check interval, give or take a busy machine",
    ).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + BUSY_MACHINE_SLACK_MS);
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served)).toEqual(new Set([200]));
  });

  it('when clients stall in the middle of their body, or send it a byte at a time, then they are cut off after REQUEST_TIMEOUT_MS, nothing is stored, and normal clients keep being served', async () => {
    const head = (id: bigint, length: number) =>
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"id":${id},`;
    const stalledIds = Array.from({ length: 5 }, randomPlantId);
    const tricklingIds = Array.from({ length: 5 }, randomPlantId);
    const stalled = await Promise.all(stalledIds.map(openRaw));
    const trickling = await Promise.all(tricklingIds.map(openRaw));
    for (const [i, client] of stalled.entries()) client.socket.write(head(stalledIds[i] ?? 0n, 100));
    for (const [i, client] of trickling.entries()) {
      client.socket.write(head(tricklingIds[i] ?? 0n, 10_000));
      void trickle(client, forever(' '), 100);
    }

    let done = false;
    const traffic = normalTraffic(() => done);
    const closes = await Promise.all([...stalled, ...trickling].map((client) => client.closed));
    done = true;
    const served = await traffic;

    const times = cutOffTimes([...stalled, ...trickling], closes);
    figures.stalledBody = {
      clients: closes.length,
      cutOffAfterMs: {
        min: ms(Math.min(...times)),
        p50: ms(percentile(times, 50)),
        max: ms(Math.max(...times)),
      },
      statuses: [...new Set(closes.map((close) => parseRawResponse(close.text).status))],
      normalRequestsMeanwhile: served.length,
    };
    for (const close of closes) expect(parseRawResponse(close.text).status).toBe(408);
    expect(Math.min(...times), 'cut off no sooner than REQUEST_TIMEOUT_MS').toBeGreaterThanOrEqual(
      REQUEST_TIMEOUT_MS,
    );
    expect(
      Math.max(...times),
      "cut off within REQUEST_TIMEOUT_MS and Node's check interval, give or take a busy machine",
    ).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + BUSY_MACHINE_SLACK_MS);
    for (const id of [...stalledIds, ...tricklingIds])
      expect(await server.storage.plants.findById(id)).toBeUndefined();
    expect(new Set(served)).toEqual(new Set([200]));
  });

  it('when a keep-alive connection stays idle, then the server closes it after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const client = await openRaw();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const answeredAt = performance.now();
    const { at, text } = await client.closed;
    figures.keepAliveIdleClosedAfterMs = ms(at - answeredAt);
    expect(parseRawResponse(text).status).toBe(200);
    // Idle from the answer on, which came after the request was written.
    expect(at - answeredAt, 'closed no sooner than KEEP_ALIVE_TIMEOUT_MS').toBeGreaterThanOrEqual(
      KEEP_ALIVE_TIMEOUT_MS,
    );
    expect(
      at - answeredAt,
      "closed within KEEP_ALIVE_TIMEOUT_MS and Node's second of grace, give or take a busy machine",
    ).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_GRACE_MS + BUSY_MACHINE_SLACK_MS);
  });

  it('when headers grow past 16 KiB, then the answer is 431, before the headers end', async () => {
    const client = await openRaw();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // 64 KiB of one header, never terminated: the server must not wait for the end.
    void trickle(
      client,
      Array.from({ length: 64 }, () => `X-Big-${Math.random()}: ${'a'.repeat(1_000)}\r\n`),
      1,
    );
    const { at, text } = await client.closed;
    figures.oversizedHeaders = {
      status: parseRawResponse(text).status,
      bytesWritten: client.written(),
      closedAfterMs: ms(at - client.openedAt),
    };
    // Not the 408 of HEADERS_TIMEOUT_MS, which waiting for the end of these headers would have met.
    expect(parseRawResponse(text).status).toBe(431);
  });

  it('when a body is declared larger than the limit, then 413 comes without reading the body', async () => {
    const client = await openRaw();
    client.socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n',
    );
    const { at, text } = await client.closed;
    figures.declaredHugeBody = {
      status: parseRawResponse(text).status,
      closedAfterMs: ms(at - client.openedAt),
    };
    // No body is ever sent: waiting for it would have met the 408 of REQUEST_TIMEOUT_MS.
    expect(parseRawResponse(text).status).toBe(413);
  });

  it('when a chunked body never ends, then 413 comes once the limit is passed, and the connection is closed', async () => {
    const client = await openRaw();
    client.socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
    void trickle(client, forever(chunk), 1);
    const { text } = await client.closed;
    figures.endlessChunkedBody = {
      status: parseRawResponse(text).status,
      bytesWrittenBeforeClose: client.written(),
    };
    expect(parseRawResponse(text).status).toBe(413);
    // The limit is 64 KiB; what a client pushes past it before the close is bounded by socket buffers.
    expect(client.written()).toBeLessThan(16 * 1024 * 1024);
  });
});
