// The package as a Koa service uses it: a minimal Koa app (test/support/test-app.ts), with Koa's own error
// handler, served by node:http through hardenServer, and spoken to over raw TCP connections.
import diagnostics from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BUSY_MACHINE_SLACK_MS } from '@plant-store/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hardenServer, MAX_WAITING } from '../src/index.ts';
import { capturingLogger, type RunningApp, startHardened } from './support/hardened-app.ts';
import { exchange, rawConnection } from './support/raw-client.ts';
import { BODY_LIMIT, type TestApp, testApp } from './support/test-app.ts';

const CLOSE = 'Connection: close\r\n';

function get(path: string, extra = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: test\r\n${extra}\r\n`;
}

function post(body: string, extra = '', type = 'application/json', method = 'POST'): string {
  return (
    `${method} /echo HTTP/1.1\r\nHost: test\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n${extra}\r\n${body}`
  );
}

/** Counts the requests Node hands over on the connection from `localPort` (its diagnostics channel). */
function countHandedOver(localPort: () => number | undefined) {
  let count = 0;
  const waiting: { readonly at: number; readonly resolve: () => void }[] = [];
  const onStart = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    if (socket.remotePort !== localPort()) return;
    count += 1;
    for (const waiter of waiting.filter((candidate) => candidate.at <= count)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  diagnostics.subscribe('http.server.request.start', onStart);
  return {
    count: () => count,
    reached: (at: number) =>
      count >= at ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ at, resolve })),
    stop: () => diagnostics.unsubscribe('http.server.request.start', onStart),
  };
}

describe('a Koa app served through hardenServer', () => {
  let test: TestApp;
  let running: RunningApp;
  beforeAll(async () => {
    test = testApp();
    running = await startHardened(test.app);
  });
  afterAll(async () => {
    test.release();
    await running?.close();
  });

  describe('requests pipelined on one connection', () => {
    it('when three requests are pipelined behind one that waits, then none starts before the one ahead is answered, and the answers come in order', async () => {
      const client = await rawConnection(running.port);
      const handedOver = countHandedOver(() => client.socket.localPort);
      try {
        client.socket.write(get('/wait') + get('/second') + get('/third', CLOSE));
        // Node has parsed all three and handed them over; the app has begun the first alone.
        await handedOver.reached(3);
        await test.begun('/wait');
        expect(test.started.filter((path) => ['/wait', '/second', '/third'].includes(path))).toEqual([
          '/wait',
        ]);
        test.release();
        const answers = await client.closed();
        expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
          [200, '{"path":"/wait"}'],
          [200, '{"path":"/second"}'],
          [200, '{"path":"/third"}'],
        ]);
        expect(test.started.filter((path) => ['/second', '/third'].includes(path))).toEqual([
          '/second',
          '/third',
        ]);
      } finally {
        handedOver.stop();
      }
    });

    it('when a request is pipelined behind one answered with Connection: close, then it is never run', async () => {
      const serverSide = running.nextConnection();
      const client = await rawConnection(running.port);
      const handedOver = countHandedOver(() => client.socket.localPort);
      try {
        // Transfer-Encoding other than chunked alone: 501, and the connection closes (its framing is unknown).
        client.socket.write(
          'POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n' +
            get('/behind-a-close'),
        );
        const answers = await client.closed();
        // Once the server's side is closed, whatever waited there has been given up.
        const socket = await serverSide;
        if (!socket.closed) await once(socket, 'close');
        expect(answers.map((answer) => answer.status)).toEqual([501]);
        expect(answers[0]?.head).toMatch(/\r\nConnection: close/i);
        expect(handedOver.count()).toBe(2);
        expect(test.started).not.toContain('/behind-a-close');
      } finally {
        handedOver.stop();
      }
    });

    it(`when more than MAX_WAITING (${MAX_WAITING}) requests wait behind one, then the connection is not read further until they have had their turn, and every one is answered in order`, async () => {
      const waiting = testApp();
      const held = await startHardened(waiting.app);
      const serverSide = held.nextConnection();
      const client = await rawConnection(held.port);
      const handedOver = countHandedOver(() => client.socket.localPort);
      const count = 5_000;
      try {
        const requests = Array.from({ length: count }, (_, index) =>
          get(`/flood-${index + 1}`, index + 1 === count ? CLOSE : ''),
        );
        client.socket.write(get('/wait') + requests.join(''));
        await waiting.begun('/wait');
        const socket = await serverSide;
        if (!socket.isPaused()) await once(socket, 'pause');
        // Node parses each read (up to 64 KiB) whole, in the turn of the event loop that paused it.
        await nextTurn();
        expect(socket.isPaused()).toBe(true);
        expect(handedOver.count()).toBeGreaterThan(MAX_WAITING);
        const bound = MAX_WAITING + 1 + Math.ceil((64 * 1024) / get('/flood-1').length) + 1;
        expect(handedOver.count()).toBeLessThanOrEqual(bound);
        waiting.release();
        const answers = await client.closed();
        expect(answers.map((answer) => answer.text)).toEqual([
          '{"path":"/wait"}',
          ...Array.from({ length: count }, (_, index) => `{"path":"/flood-${index + 1}"}`),
        ]);
      } finally {
        handedOver.stop();
        await held.close();
      }
    });
  });

  describe("bytes Node's parser refuses", () => {
    it('when a valid request is followed by garbage, then the request is answered first, then a 400 with the Error body', async () => {
      const answers = await exchange(running.port, `${get('/before-garbage')}GARBAGE\r\n\r\n`);
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [200, '{"path":"/before-garbage"}'],
        [400, '{"error":400,"message":"bad request"}'],
      ]);
      expect(answers[1]?.head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
      expect(await running.logger.said('malformed request refused')).toMatchObject({
        level: 'info',
        fields: { status: 400, code: expect.stringMatching(/^HPE_/) },
      });
    });

    it('when headers are larger than Node takes, then 431 with the Error body', async () => {
      const answers = await exchange(running.port, get('/', `X-Large: ${'a'.repeat(20_000)}\r\n`));
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [431, '{"error":431,"message":"request header fields too large"}'],
      ]);
    });

    it('when CONNECT is asked, then 400 with the Error body, and the connection closed', async () => {
      const answers = await exchange(
        running.port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
      );
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [400, '{"error":400,"message":"CONNECT is not supported: this service is not a proxy"}'],
      ]);
      expect(await running.logger.said('CONNECT refused')).toMatchObject({ fields: { status: 400 } });
    });

    it('when a body is cut off by a malformed chunk, then the request reading it answers the 400 itself, once', async () => {
      const answers = await exchange(
        running.port,
        'POST /echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
          '3\r\n{"i\r\nZZ\r\n',
      );
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([[400, 'bad request']]);
    });
  });

  describe('the request head (checkRequestHead), answered by Koa’s own error handler', () => {
    it.each([
      [
        'two Host headers',
        'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
        400,
        'the Host header must be sent once',
      ],
      ['no Host in HTTP/1.1', 'GET / HTTP/1.1\r\n\r\n', 400, 'the Host header is required'],
      [
        'a Host that is no host',
        'GET / HTTP/1.1\r\nHost: a b\r\n\r\n',
        400,
        'the Host header must be a host name or address, with an optional port',
      ],
      [
        'a target with a fragment',
        'GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n',
        400,
        'the request target must not have a fragment (#)',
      ],
      [
        'an Expect other than 100-continue',
        'GET / HTTP/1.1\r\nHost: a\r\nExpect: tea\r\n\r\n',
        417,
        'the only expectation supported is "Expect: 100-continue"',
      ],
      [
        'HTTP/2.0 on an HTTP/1 connection',
        'GET / HTTP/2.0\r\nHost: a\r\n\r\n',
        505,
        'the HTTP version is not supported: only HTTP/1.0 and HTTP/1.1 are',
      ],
    ])('when the request has %s, then %i with its message', async (_label, request, status, message) => {
      const answers = await exchange(running.port, request.replace('\r\n\r\n', `\r\n${CLOSE}\r\n`));
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([[status, message]]);
    });

    it('when an HTTP/1.0 request has no Host, then it is served (Host is the rule of HTTP/1.1)', async () => {
      const answers = await exchange(running.port, 'GET /old HTTP/1.0\r\n\r\n');
      expect(answers.map((answer) => answer.status)).toEqual([200]);
    });

    it('when a coding other than chunked comes before it, then 501 and the connection closes', async () => {
      const answers = await exchange(
        running.port,
        'POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      );
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [501, 'the only Transfer-Encoding supported is chunked: bodies are never decoded'],
      ]);
    });
  });

  describe('the JSON body (jsonBody)', () => {
    it('when the body holds int64 integers, then the members asked for are built, exactly, and the others left out', async () => {
      const answers = await exchange(
        running.port,
        post('{"id":9223372036854775807,"name":"x","other":[1]}', CLOSE),
      );
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [200, '{"id":{"bigint":"9223372036854775807"},"name":"x"}'],
      ]);
    });

    it.each([
      [
        'not JSON',
        post('{"id":', CLOSE),
        400,
        'the request body is not valid JSON: unexpected end of the text at position 6',
      ],
      ['empty', post('', CLOSE), 400, 'request body is required'],
      ['not UTF-8', post('"\xff"', CLOSE), 400, 'the request body is not valid UTF-8'],
      [
        'of another media type',
        post('{}', CLOSE, 'text/plain'),
        415,
        'the request body must be application/json (UTF-8)',
      ],
      [
        'encoded',
        post('{}', `Content-Encoding: gzip\r\n${CLOSE}`),
        415,
        'the request body must not be encoded: Content-Encoding is not supported',
      ],
      [
        'typed twice',
        post('{}', `Content-Type: application/json\r\n${CLOSE}`),
        400,
        'the Content-Type header must be sent once',
      ],
    ])('when the body is %s, then %i with its message', async (_label, request, status, message) => {
      const bytes = Buffer.from(request, 'latin1');
      const client = await rawConnection(running.port);
      client.socket.write(bytes);
      const answers = await client.closed();
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([[status, message]]);
    });

    it('when a reader takes another JSON media type (a merge patch), then it reads a body of that type, any case, with a UTF-8 charset', async () => {
      for (const type of ['application/merge-patch+json', 'Application/Merge-Patch+JSON; charset=utf-8']) {
        const answers = await exchange(running.port, post('{"name":"x","id":1}', CLOSE, type, 'PATCH'));
        expect(answers.map((answer) => [answer.status, answer.text])).toEqual([[200, '{"name":"x"}']]);
      }
    });

    it.each([
      ['application/json', ''],
      ['text/plain', ''],
      ['application/merge-patch+json; charset=iso-8859-1', ''],
      ['application/merge-patch+json', 'Content-Encoding: gzip\r\n'],
    ])(
      'when a PATCH body is %s %s, then 415 with Accept-Patch naming the type the reader takes',
      async (type, extra) => {
        const answers = await exchange(running.port, post('{"name":"x"}', `${extra}${CLOSE}`, type, 'PATCH'));
        expect(answers).toHaveLength(1);
        expect(answers[0]?.status).toBe(415);
        expect(answers[0]?.text).toMatch(
          /^the request body must (be application\/merge-patch\+json \(UTF-8\)|not be encoded)/,
        );
        expect(answers[0]?.head).toMatch(/\r\nAccept-Patch: application\/merge-patch\+json(\r\n|$)/i);
      },
    );

    it('when a POST is refused for its media type, then no Accept-Patch is sent: it names what a PATCH takes', async () => {
      const answers = await exchange(running.port, post('{}', CLOSE, 'text/plain'));
      expect(answers[0]?.status).toBe(415);
      expect(answers[0]?.head).not.toMatch(/Accept-Patch/i);
    });

    it(`when a body says it is larger than the limit (${BODY_LIMIT} bytes), then 413 before it is read, and the connection closes`, async () => {
      const client = await rawConnection(running.port);
      client.socket.write(
        `POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT + 1}\r\n\r\n`,
      );
      const answers = await client.closed();
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [413, `the request body is larger than ${BODY_LIMIT} bytes`],
      ]);
      expect(answers[0]?.head).toMatch(/\r\nConnection: close/i);
    });

    it('when a chunked body grows past the limit, then 413 as soon as it does, and the rest is not read', async () => {
      const client = await rawConnection(running.port);
      client.socket.write(
        'POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
          `${(BODY_LIMIT + 1).toString(16)}\r\n${' '.repeat(BODY_LIMIT + 1)}\r\n`,
      );
      // The body never ends: the answer comes all the same.
      const answers = await client.closed();
      expect(answers.map((answer) => answer.status)).toEqual([413]);
    });

    it('when a request expects 100-continue and is acceptable, then 100 Continue comes before any body is sent, and the body sent after it is read', async () => {
      const body = '{"id":1,"name":"after the go-ahead"}';
      const client = await rawConnection(running.port);
      client.socket.write(
        `POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
          `Expect: 100-continue\r\n${CLOSE}\r\n`,
      );
      await client.receivedText('\r\n\r\n');
      expect(client.received().toString('latin1')).toBe('HTTP/1.1 100 Continue\r\n\r\n');
      client.socket.write(body);
      const answers = await client.closed();
      expect(answers.map((answer) => [answer.status, answer.text])).toEqual([
        [100, ''],
        [200, '{"id":{"bigint":"1"},"name":"after the go-ahead"}'],
      ]);
    });

    it.each([
      ['of another media type', 'text/plain', 10, 415],
      ['larger than the limit', 'application/json', BODY_LIMIT + 1, 413],
    ])(
      'when a request expects 100-continue and its body is %s, then it is refused without a 100 Continue first',
      async (_label, type, length, status) => {
        const client = await rawConnection(running.port);
        client.socket.write(
          `POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n` +
            'Expect: 100-continue\r\n\r\n',
        );
        const answers = await client.closed();
        expect(answers.map((answer) => answer.status)).toEqual([status]);
      },
    );
  });
});

describe('options of hardenServer', () => {
  let running: RunningApp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('when formatRawAnswer is given, then the answers written to the socket take its shape', async () => {
    running = await startHardened(testApp().app, {
      formatRawAnswer: (status, message) => ({
        contentType: 'application/problem+json',
        body: JSON.stringify({ status, title: message }),
      }),
    });
    const refused = await exchange(running.port, 'GARBAGE\r\n\r\n');
    expect(refused.map((answer) => [answer.status, answer.text])).toEqual([
      [400, '{"status":400,"title":"bad request"}'],
    ]);
    expect(refused[0]?.head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
    const connect = await exchange(running.port, 'CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(connect.map((answer) => answer.text)).toEqual([
      '{"status":400,"title":"CONNECT is not supported: this service is not a proxy"}',
    ]);
  });

  it('when maxConnections is reached, then a new connection is closed unanswered, said once in the log, and the open ones go on being served', async () => {
    running = await startHardened(testApp().app, {
      maxConnections: 2,
      maxConnectionsName: 'MAX_CONNECTIONS',
    });
    expect(running.hardened.maxConnections).toBe(2);
    const open = [await rawConnection(running.port), await rawConnection(running.port)];
    for (const [index, client] of open.entries()) {
      client.socket.write(get(`/open-${index}`));
      await client.receivedText(`{"path":"/open-${index}"}`);
    }
    const over = await rawConnection(running.port);
    over.socket.write(get('/over-the-cap'));
    expect(await over.closed()).toEqual([]);
    expect(
      await running.logger.said('MAX_CONNECTIONS reached: new connections are closed unanswered'),
    ).toMatchObject({
      level: 'warn',
      fields: { maxConnections: 2, dropped: 1 },
    });
    const first = open[0];
    first?.socket.write(get('/still-served', CLOSE));
    expect((await first?.closed())?.map((answer) => answer.text)).toEqual([
      '{"path":"/open-0"}',
      '{"path":"/still-served"}',
    ]);
    open[1]?.socket.destroy();
  });

  // The promise: an answer left unsent for sendTimeoutMs is cut off, no sooner, and within a quarter more
  // (the sweep runs every eighth of it), give or take a busy machine.
  const SEND_TIMEOUT_MS = 400;
  it(`when a client stops reading a large answer, then it is cut off no sooner than sendTimeoutMs (${SEND_TIMEOUT_MS} ms) after the answer was handed over, and within a quarter more`, async () => {
    const test = testApp();
    running = await startHardened(test.app, { sendTimeoutMs: SEND_TIMEOUT_MS });
    const serverSide = running.nextConnection();
    const client = await rawConnection(running.port);
    client.socket.pause();
    client.socket.write(get('/large'));
    const cutOff = await running.logger.said('answer not read in time: connection cut off');
    expect((await serverSide).destroyed).toBe(true);
    const waited = cutOff.at - test.large.answeredAt;
    expect(waited, 'cut off no sooner than sendTimeoutMs').toBeGreaterThanOrEqual(SEND_TIMEOUT_MS);
    expect(waited, 'cut off within a quarter more, give or take a busy machine').toBeLessThan(
      SEND_TIMEOUT_MS * 1.25 + BUSY_MACHINE_SLACK_MS,
    );
    expect(cutOff.fields).toMatchObject({ timeoutMs: SEND_TIMEOUT_MS, unsentBytes: expect.any(Number) });
    // What the client can still read ends before the answer does: the connection was closed under it.
    client.socket.resume();
    await client.closed();
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(client.received().toString('latin1'))?.[1]);
    expect(length).toBe(test.large.bytes);
    expect(client.received().length).toBeLessThan(length);
  });

  it('when the server already has a request listener, then hardenServer refuses it: requests would not take turns', async () => {
    const { createServer } = await import('node:http');
    const server = createServer(() => {});
    expect(() => hardenServer(server, () => {}, { logger: capturingLogger() })).toThrow(
      /already has a request listener/,
    );
  });

  it.each([
    [{ maxConnections: 0 }, /maxConnections/],
    [{ maxConnections: 1.5 }, /maxConnections/],
    [{ sendTimeoutMs: 0 }, /sendTimeoutMs/],
    [{ sendTimeoutMs: Number.POSITIVE_INFINITY }, /sendTimeoutMs/],
    [{ reservedDescriptors: -1 }, /reservedDescriptors/],
  ])(
    'when an option is out of range (%j), then hardenServer throws a RangeError naming it',
    async (options, name) => {
      const { createServer } = await import('node:http');
      expect(() => hardenServer(createServer(), () => {}, { logger: capturingLogger(), ...options })).toThrow(
        expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(name) }),
      );
    },
  );
});
