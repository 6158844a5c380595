// A drill (RELIABILITY.md, "Out of file descriptors"): clients that use up the process's file descriptors. The service runs as a child process
// under `prlimit --nofile=256:256`, and 400 connections each send half a request (no token needed)
// and wait. DESIGN.md: out of descriptors or connections is "unavailable", never a 500; MAX_CONNECTIONS
// (auto: the limit less 128) keeps descriptors for the process itself; and it recovers by itself.
import { spawnSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESERVED_DESCRIPTORS } from '@plant-store/http-hardening';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reportDrill } from '../support/drill-report.ts';
import { checkResponse } from '../support/openapi-validator.ts';
import { killLeftoverRuns, listeningUrl, type Run, runMain } from '../support/run-main.ts';
import { TOKEN } from '../support/test-server.ts';

const LIMIT = 256;
const FLOOD = 400;
// Waiting for what the service does by itself, on a busy machine: a guard, not a target.
const BOUND_MS = 30_000;

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;
if (!hasPrlimit)
  process.stderr.write('\nDID NOT RUN: the out-of-descriptors drill needs prlimit (util-linux)\n\n');

afterEach(killLeftoverRuns);
const figures: Record<string, unknown> = { openFilesLimit: LIMIT, halfSentConnections: FLOOD };
afterAll(() => {
  if (hasPrlimit) reportDrill('out-of-descriptors', figures);
});

interface Started {
  readonly run: Run;
  readonly port: number;
  /** The 'listening' line. */
  readonly listening: Record<string, unknown>;
}

async function start(env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const run = runMain(
    {
      PATH: process.env.PATH,
      PORT: '0',
      DATABASE_URL: 'memory:',
      API_TOKENS: TOKEN,
      // Half-sent requests and the idle client wait for as long as the drill needs.
      HEADERS_TIMEOUT_MS: '120000',
      REQUEST_TIMEOUT_MS: '120000',
      KEEP_ALIVE_TIMEOUT_MS: '600000',
      ...env,
    },
    { through: ['prlimit', `--nofile=${LIMIT}:${LIMIT}`] },
  );
  const url = new URL(await listeningUrl(run));
  const listening = JSON.parse(
    run
      .stdout()
      .split('\n')
      .find((line) => line.includes('"msg":"listening"')) ?? '{}',
  ) as Record<string, unknown>;
  return { run, port: Number(url.port), listening };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One keep-alive connection, opened before the flood: requests one at a time, each answer checked against the document. */
async function openClient(port: number) {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    waiting?.();
  });
  const answer = (): Answer | undefined => {
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (received.length < end + 4 + length) return undefined;
    const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
    received = received.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  };
  return {
    async ask(method: string, path: string, body = ''): Promise<Answer> {
      const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`];
      if (body !== '')
        head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
      socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
      for (;;) {
        const got = answer();
        if (got !== undefined) {
          checkResponse({ method, path, ...got });
          return got;
        }
        if (socket.destroyed) throw new Error(`the connection closed before answering ${method} ${path}`);
        await new Promise<void>((resolve) => {
          waiting = resolve;
          socket.once('close', resolve);
        });
      }
    },
    close: () => socket.destroy(),
  };
}

/** FLOOD connections, each with half a request's headers sent; counts those the service closes. */
async function flood(port: number): Promise<{ closedByService(): number; end(): void }> {
  let closed = 0;
  let ending = false;
  const sockets = await Promise.all(
    Array.from(
      { length: FLOOD },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.on('error', () => {});
          socket.once('close', () => {
            if (!ending) closed += 1;
          });
          socket.once('connect', () => {
            socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
            resolve(socket);
          });
          socket.once('close', () => resolve(socket));
        }),
    ),
  );
  return {
    closedByService: () => closed,
    end: () => {
      ending = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${BOUND_MS} ms: ${what}`);
    await sleep(20);
  }
}

/** A new connection's GET /healthz, tried until it is answered (connections may still be refused meanwhile). */
async function servedAgain(port: number): Promise<Answer> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    try {
      const client = await openClient(port);
      try {
        return await client.ask('GET', '/healthz');
      } finally {
        client.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

const logLines = (run: Run) =>
  run
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.skipIf(!hasPrlimit)('drill: clients use up the file descriptors', () => {
  it('when MAX_CONNECTIONS is auto and half-sent connections outnumber it, then those over it are closed unanswered, the open connections are served, and new ones once the flood ends', async () => {
    const { run, port, listening } = await start();
    const cap = LIMIT - RESERVED_DESCRIPTORS;
    expect(listening).toMatchObject({ maxConnections: cap, openFilesLimit: LIMIT });
    const client = await openClient(port);
    expect((await client.ask('GET', '/healthz')).status).toBe(200);

    const connections = await flood(port);
    // The cap counts the client above: every flood connection past cap - 1 is closed.
    await until(
      () => connections.closedByService() >= FLOOD - (cap - 1),
      'the connections over the cap closed',
    );
    const statuses = [
      (await client.ask('GET', '/docs/assets/favicon-32x32.png')).status,
      (await client.ask('POST', '/plants', '{"id":1,"name":"kept"}')).status,
      (await client.ask('GET', '/plants/1')).status,
    ];
    expect(statuses).toEqual([200, 200, 200]);
    expect(logLines(run)).toContainEqual(
      expect.objectContaining({
        level: 40,
        maxConnections: cap,
        msg: expect.stringMatching(/^MAX_CONNECTIONS reached/),
      }),
    );

    connections.end();
    expect((await servedAgain(port)).status).toBe(200);
    figures.capped = { maxConnections: cap, closedByService: connections.closedByService(), statuses };
    client.close();
  });

  it('when MAX_CONNECTIONS is above the limit and the descriptors run out, then a request needing one answers 503 with Retry-After, never 500, and the service recovers once connections close', async () => {
    const { run, port } = await start({ MAX_CONNECTIONS: '100000' });
    expect(logLines(run)).toContainEqual(
      expect.objectContaining({ level: 40, maxConnections: 100_000, openFilesLimit: LIMIT }),
    );
    const client = await openClient(port);
    expect((await client.ask('GET', '/healthz')).status).toBe(200);

    const connections = await flood(port);
    // Node's event loop closes what it accepts past the last descriptor: once one is, none is left.
    await until(() => connections.closedByService() > 0, 'the service out of descriptors');
    const asset = await client.ask('GET', '/docs/assets/favicon-32x32.png');
    expect(asset.status).toBe(503);
    expect(asset.headers['retry-after']).toBe('5');
    expect(JSON.parse(asset.body)).toEqual({
      error: 503,
      message: 'the service is unavailable, try again later',
    });
    // What needs no new descriptor goes on as usual.
    const created = await client.ask('POST', '/plants', '{"id":2,"name":"kept"}');
    expect(created.status).toBe(200);
    expect(logLines(run)).toContainEqual(
      expect.objectContaining({
        path: '/docs/assets/favicon-32x32.png',
        status: 503,
        err: expect.objectContaining({ code: 'EMFILE' }),
      }),
    );

    connections.end();
    expect((await servedAgain(port)).status).toBe(200);
    expect((await client.ask('GET', '/docs/assets/favicon-32x32.png')).status).toBe(200);
    figures.uncapped = {
      closedByService: connections.closedByService(),
      statuses: { asset: asset.status, create: created.status },
    };
    client.close();
  });
});
