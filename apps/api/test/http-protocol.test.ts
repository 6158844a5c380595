import { connect } from 'node:net';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from './support/expect-error.ts';
import { nodeRequest, parseRawResponse, rawExchange } from './support/raw-http.ts';
import { OTHER_TOKEN, startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

const AUTH = { Authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const LIMIT = 65_536;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(openMemoryPlantStorage());
});
afterAll(async () => {
  await server?.stop();
});

/** After a bad request the server still creates plants and loses none. */
async function expectStillServing(): Promise<void> {
  const id = 900_000 + Math.floor(Math.random() * 100_000);
  const response = await server.createPlant({ id, name: 'still here' });
  expect(response.status).toBe(200);
  expect(await server.storage.plants.findById(BigInt(id))).toEqual({ id: BigInt(id), name: 'still here' });
}

describe('the order of checks on POST /plants', () => {
  const huge = 'x'.repeat(LIMIT * 2);

  it('when there is no token, a wrong media type and a huge body, then the answer is 401', async () => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: huge,
    });
    await expectErrorResponse(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
  });

  it('when the token is wrong, the media type wrong and the body huge, then the answer is 401 invalid_token', async () => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { Authorization: 'Bearer not-the-token', 'Content-Type': 'text/plain' },
      body: huge,
    });
    await expectErrorResponse(response, 401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="plant-store", error="invalid_token"',
    );
  });

  it('when the token is right, the media type wrong and the body huge, then the answer is 415', async () => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'text/plain' },
      body: huge,
    });
    await expectErrorResponse(response, 415);
  });

  it('when the token and media type are right and the body huge and not JSON, then the answer is 413', async () => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE },
      body: huge,
    });
    await expectErrorResponse(response, 413);
  });

  it('when only the JSON is wrong, then the answer is 400; when only the id is taken, 409', async () => {
    await expectErrorResponse(await server.createPlant('{"id":'), 400);
    expect((await server.createPlant({ id: 41, name: 'a' })).status).toBe(200);
    await expectErrorResponse(await server.createPlant({ id: 41, name: 'b' }), 409);
  });

  it('when a 10 MB body is declared and never sent, then the 401 comes at once, without waiting for the body', async () => {
    const response = await nodeRequest(server.port, {
      headers: { 'Content-Type': 'application/json', 'Content-Length': 10 * 1024 * 1024 },
      keepOpen: true,
    });
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('close');
    expect(response.json()).toEqual({ error: 401, message: expect.any(String) });
  });
});

describe('credentials', () => {
  it.each([
    ['a lower-case scheme', `bearer ${TOKEN}`, 200],
    ['an upper-case scheme', `BEARER ${TOKEN}`, 200],
    ['the second configured token', `Bearer ${OTHER_TOKEN}`, 200],
    ['several spaces after the scheme', `Bearer   ${TOKEN}`, 200],
  ])('when the credential has %s, then it is accepted', async (_label, authorization, status) => {
    const id = 500 + Math.floor(Math.random() * 1000);
    const response = await server.createPlant({ id, name: `auth ${id}` }, { Authorization: authorization });
    expect(response.status).toBe(status);
  });

  it.each([
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['no credential after the scheme', 'Bearer'],
    ['two credentials', `Bearer ${TOKEN} ${TOKEN}`],
    ['a character outside b64token', `Bearer ${TOKEN}!`],
    ['the token alone', TOKEN],
  ])(
    'when the header has %s, then it answers 401 without error="invalid_token"',
    async (_label, authorization) => {
      const response = await server.createPlant({ id: 42, name: 'a' }, { Authorization: authorization });
      await expectErrorResponse(response, 401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    },
  );

  it.each([
    ['a prefix of the token', TOKEN.slice(0, -1)],
    ['the token with one more character', `${TOKEN}x`],
    ['the token in another case', TOKEN.toUpperCase()],
  ])('when the token is %s, then it answers 401 invalid_token', async (_label, token) => {
    const response = await server.createPlant({ id: 42, name: 'a' }, { Authorization: `Bearer ${token}` });
    await expectErrorResponse(response, 401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await server.storage.plants.findById(42n)).toBeUndefined();
  });
});

describe('media type', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON; Charset="UTF-8"',
    'application/json;charset=UTF-8',
    'application/json; foo=bar',
  ])('when the content type is %s, then the body is read', async (contentType) => {
    const id = 2_000 + Math.floor(Math.random() * 1000);
    const response = await server.createPlant({ id, name: 'typed' }, { 'Content-Type': contentType });
    expect(response.status).toBe(200);
  });

  it.each([
    'text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/jsonx',
    'application/merge-patch+json',
    'application/x-www-form-urlencoded',
    'application/json; charset',
    'json',
  ])('when the content type is %s, then it answers 415', async (contentType) => {
    await expectErrorResponse(
      await server.createPlant({ id: 43, name: 'a' }, { 'Content-Type': contentType }),
      415,
    );
  });

  it('when there is no content type, then it answers 415', async () => {
    const response = await nodeRequest(server.port, { headers: AUTH, chunks: ['{"id":43,"name":"a"}'] });
    expect(response.status).toBe(415);
    expect(response.json()).toEqual({ error: 415, message: expect.any(String) });
    await expectStillServing();
  });
});

describe('body size', () => {
  it('when a body above the limit is declared, then it answers 413 at once with Connection: close', async () => {
    const response = await nodeRequest(server.port, {
      headers: { ...AUTH, ...JSON_TYPE, 'Content-Length': LIMIT + 1 },
      keepOpen: true,
    });
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(response.json()).toEqual({ error: 413, message: 'the request body is larger than 65536 bytes' });
    await expectStillServing();
  });

  it('when a chunked body grows past the limit, then it answers 413 without waiting for its end', async () => {
    const response = await nodeRequest(server.port, {
      headers: { ...AUTH, ...JSON_TYPE },
      chunks: ['{"id":44,"name":"', 'x'.repeat(40_000), 'x'.repeat(40_000)],
      keepOpen: true,
    });
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    await expectStillServing();
  });

  it('when a chunked body stays within the limit, then it is read', async () => {
    const response = await nodeRequest(server.port, {
      headers: { ...AUTH, ...JSON_TYPE },
      chunks: ['{"id":45,', '"name":"', 'x'.repeat(60_000), '"}'],
    });
    expect(response.status).toBe(200);
    expect((await server.storage.plants.findById(45n))?.name).toHaveLength(60_000);
  });

  it('when a body is exactly at the limit, then it is read', async () => {
    const prefix = '{"id":46,"name":"';
    const body = `${prefix}${'y'.repeat(LIMIT - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    expect((await server.createPlant(body)).status).toBe(200);
  });
});

describe('JSON bodies', () => {
  it.each([
    ['an empty body', '', /request body is required/],
    ['only whitespace', ' \n\t ', /request body is required/],
    ['a cut-off object', '{"id":47,"name":"a"', /not valid JSON/],
    ['trailing garbage', '{"id":47,"name":"a"} x', /not valid JSON.*position/],
    ['two values', '{"id":47,"name":"a"} {"id":48,"name":"b"}', /not valid JSON/],
    ['a comment', '{"id":47, /* comment */ "name":"a"}', /not valid JSON/],
    ['single quotes', "{'id':47,'name':'a'}", /not valid JSON/],
    ['NaN', '{"id":NaN,"name":"a"}', /not valid JSON/],
    ['a trailing comma', '{"id":47,"name":"a",}', /not valid JSON/],
    ['a leading plus', '{"id":+47,"name":"a"}', /not valid JSON/],
  ])('when the body is %s, then it answers 400 and stores nothing', async (_label, body, message) => {
    expect(await expectErrorResponse(await server.createPlant(body), 400)).toMatch(message);
    expect(await server.storage.plants.findById(47n)).toBeUndefined();
  });

  it('when the body holds bytes that are not UTF-8, then it answers 400 instead of replacing them', async () => {
    const body = Buffer.concat([
      Buffer.from('{"id":49,"name":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const response = await nodeRequest(server.port, { headers: { ...AUTH, ...JSON_TYPE }, chunks: [body] });
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: 400, message: 'the request body is not valid UTF-8' });
    expect(await server.storage.plants.findById(49n)).toBeUndefined();
  });

  it('when the body holds an overlong UTF-8 encoding, then it answers 400', async () => {
    const body = Buffer.concat([
      Buffer.from('{"id":49,"name":"'),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from('"}'),
    ]);
    const response = await nodeRequest(server.port, { headers: { ...AUTH, ...JSON_TYPE }, chunks: [body] });
    expect(response.status).toBe(400);
  });

  it('when the body starts with a byte order mark, then it answers 400 instead of skipping it', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":49,"name":"a"}')]);
    const response = await nodeRequest(server.port, { headers: { ...AUTH, ...JSON_TYPE }, chunks: [body] });
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: 400, message: expect.stringMatching(/byte order mark/) });
    expect(await server.storage.plants.findById(49n)).toBeUndefined();
  });

  it('when a multi-byte character is split across chunks, then it is decoded whole', async () => {
    const bytes = Buffer.from('{"id":50,"name":"🌵"}');
    const split = bytes.indexOf(0xf0) + 2;
    const response = await nodeRequest(server.port, {
      headers: { ...AUTH, ...JSON_TYPE },
      chunks: [bytes.subarray(0, split), bytes.subarray(split)],
    });
    expect(response.status).toBe(200);
    expect(await server.storage.plants.findById(50n)).toEqual({ id: 50n, name: '🌵' });
  });

  it('when the body has a __proto__ key, then it is an ignored unknown field', async () => {
    const response = await server.createPlant('{"id":51,"name":"a","__proto__":{"tag":"injected"}}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'a' });
    expect(await server.storage.plants.findById(51n)).toEqual({ id: 51n, name: 'a' });
  });

  it('after every kind of bad request, the server still serves', async () => {
    await expectStillServing();
  });
});

describe('paths and methods', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/plant'],
    ['POST', '/plants/1/x'],
    ['POST', '/plants/'],
    ['POST', '/PLANTS'],
    ['GET', '/plants%'],
    ['GET', '/%E0%A4%A'],
    ['POST', '/%ZZ'],
    ['GET', '/pl%61nts'],
    ['GET', '//plants'],
    ['GET', '/docs/assets/%ZZ'],
    ['GET', '/docs/assets/'],
  ])('when %s %s is asked, then it answers 404 as JSON', async (method, path) => {
    const response = await nodeRequest(server.port, { method, path, headers: AUTH });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({ error: 404, message: expect.any(String) });
  });

  it.each([
    ['DELETE', '/plants', 'HEAD, GET, POST'],
    ['PUT', '/plants', 'HEAD, GET, POST'],
    ['PURGE', '/plants', 'HEAD, GET, POST'],
    ['POST', '/plants/1', 'HEAD, GET, PUT, PATCH, DELETE'],
    ['COPY', '/plants/1', 'HEAD, GET, PUT, PATCH, DELETE'],
    ['POST', '/healthz', 'HEAD, GET'],
    ['DELETE', '/readyz', 'HEAD, GET'],
    ['POST', '/metrics', 'HEAD, GET'],
  ])('when %s %s is asked, then it answers 405 as JSON with Allow: %s', async (method, path, allow) => {
    const response = await nodeRequest(server.port, { method, path, headers: AUTH });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.json()).toEqual({ error: 405, message: expect.stringContaining(allow) });
  });

  it.each([
    ['/plants', 'HEAD, GET, POST'],
    ['/plants/1', 'HEAD, GET, PUT, PATCH, DELETE'],
    ['/healthz', 'HEAD, GET'],
  ])(
    'when OPTIONS %s is asked, then it answers 405 as JSON with Allow: %s, as for any method not served',
    async (path, allow) => {
      const response = await nodeRequest(server.port, { method: 'OPTIONS', path, headers: AUTH });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(response.json()).toEqual({
        error: 405,
        message: `OPTIONS is not allowed here; allowed: ${allow}`,
      });
    },
  );

  it('when OPTIONS is asked on an unknown path, then it answers 404 as JSON', async () => {
    const response = await nodeRequest(server.port, { method: 'OPTIONS', path: '/nothing', headers: AUTH });
    expect(response.status).toBe(404);
    expect(response.json()).toEqual({ error: 404, message: 'there is nothing at OPTIONS /nothing' });
  });

  it('when the id in the path is percent-encoded, then it is read decoded, and a bad escape is a 400 naming the id', async () => {
    const id = 700_000 + Math.floor(Math.random() * 100_000);
    expect((await server.createPlant({ id, name: 'encoded' })).status).toBe(200);
    const encoded = [...String(id)].map((digit) => `%3${digit}`).join('');
    const found = await nodeRequest(server.port, {
      method: 'GET',
      path: `/plants/${encoded}`,
      headers: AUTH,
    });
    expect(found.status).toBe(200);
    expect(found.json()).toEqual({ name: 'encoded' });
    const bad = await nodeRequest(server.port, { method: 'GET', path: '/plants/%ZZ', headers: AUTH });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ error: 400, message: expect.stringContaining('id must be an integer') });
  });

  it.each([
    ['GET', '/plants/%E0%A4%A'],
    ['DELETE', '/plants/%'],
    ['GET', '/plants/%2F1'],
    ['DELETE', '/plants/%00'],
  ])(
    'when %s %s is asked, then the id is refused with a 400 naming it, never a 500',
    async (method, path) => {
      const response = await nodeRequest(server.port, { method, path, headers: AUTH });
      expect(response.status).toBe(400);
      expect(response.json()).toEqual({
        error: 400,
        message: expect.stringContaining('id must be an integer'),
      });
    },
  );

  it('when a path has a segment past the id, then it is not the plant: 404', async () => {
    const response = await nodeRequest(server.port, { method: 'GET', path: '/plants/1/', headers: AUTH });
    expect(response.status).toBe(404);
  });

  it('when a query string is added, then the path still matches', async () => {
    const response = await fetch(`${server.url}/healthz?verbose=1`);
    expect(response.status).toBe(200);
  });

  it('when HEAD /healthz is asked, then it answers 200 without a body', async () => {
    const response = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('when any answer is sent, then it names no framework', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });
});

describe('requests Node cannot parse', () => {
  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400],
    ['a malformed HTTP version', 'GET /healthz HTTP/x.1\r\nHost: x\r\n\r\n', 400],
    ['an HTTP version it does not speak', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n', 505],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
    [
      'conflicting lengths',
      'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      400,
    ],
    ['headers too large', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])(
    'when the request has %s, then it answers %s as JSON and closes the connection',
    async (_label, raw, status) => {
      const response = parseRawResponse(await rawExchange(server.port, raw));
      expect(response.status).toBe(status);
      expect(response.headers).toContain('Content-Type: application/json; charset=utf-8');
      expect(response.body).toEqual({ error: status, message: expect.any(String) });
      await expectStillServing();
    },
  );
});

describe('request ids and logs', () => {
  it('when a sane X-Request-Id is sent, then it is echoed and written to the log line', async () => {
    const response = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': 'abc-123_x.y' } });
    expect(response.headers.get('x-request-id')).toBe('abc-123_x.y');
    const line = server.logs.requests().find((l) => l.requestId === 'abc-123_x.y');
    expect(line).toMatchObject({
      method: 'GET',
      path: '/healthz',
      status: 200,
      durationMs: expect.any(Number),
    });
    // Tracing is off (no OTLP endpoint): the line has no trace ids.
    expect(line).not.toHaveProperty('trace_id');
    expect(line).not.toHaveProperty('span_id');
  });

  it.each([
    ['a space', 'abc 123'],
    ['a quote', 'abc"}'],
    ['more than 128 characters', 'a'.repeat(129)],
  ])('when the X-Request-Id has %s, then a fresh UUID is used instead', async (_label, incoming) => {
    const response = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': incoming } });
    expect(response.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  it('when requests are made, then each writes exactly one log line with its id, and never the token', async () => {
    const before = server.logs.requests().length;
    const ids = ['log-1', 'log-2', 'log-3', 'log-4'];
    await server.createPlant({ id: 60, name: 'logged' }, { 'X-Request-Id': 'log-1' });
    await server.createPlant(
      { id: 60, name: 'logged' },
      { 'X-Request-Id': 'log-2', Authorization: 'Bearer wrong-token' },
    );
    await server.createPlant(`{"id":61,"name":"${TOKEN}"`, { 'X-Request-Id': 'log-3' });
    await fetch(`${server.url}/nowhere?token=${TOKEN}`, { headers: { 'X-Request-Id': 'log-4', ...AUTH } });

    const lines = server.logs.requests().slice(before);
    expect(lines.map((l) => l.requestId)).toEqual(ids);
    expect(lines.map((l) => l.status)).toEqual([200, 401, 400, 404]);
    expect(lines[3]?.path).toBe('/nowhere');
    expect(server.logs.text()).not.toContain(TOKEN);
    expect(server.logs.text()).not.toContain('wrong-token');
    expect(server.logs.text().toLowerCase()).not.toContain('authorization');
  });
});

describe('clients that go away', () => {
  it('when a client disconnects in the middle of its body, then the request is logged as cut off and the server still serves', async () => {
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
        'X-Request-Id: cut-off\r\nContent-Length: 1000\r\n\r\n{"id":70,',
    );
    socket.destroy();
    await expect
      .poll(() => server.logs.requests().find((l) => l.requestId === 'cut-off')?.status, { timeout: 10_000 })
      .toBe(400);
    expect(await server.storage.plants.findById(70n)).toBeUndefined();
    await expectStillServing();
  });
});
