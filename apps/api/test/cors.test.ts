// Browsers (DESIGN.md, "Browsers (CORS)"): with CORS_ORIGINS unset no CORS header at all; set, every answer
// to a listed origin carries them, failures included, and its preflights answer 204 without a token.
// Run on each storage, as the outside suite checks it on the embedded default and on PostgreSQL.
import type { PlantStorage } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { openPglitePlantStorage, openPostgresPlantStorage } from '@plant-store/storage-postgres';
import { provideTestPostgres } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from './support/expect-error.ts';
import { publishedDocument } from './support/openapi-validator.ts';
import { rawExchange } from './support/raw-http.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

const APP = 'https://app.example';
const DEV = 'http://localhost:5173';
const STRANGER = 'https://evil.example';
const auth = { Authorization: `Bearer ${TOKEN}` };

const EXPOSED = ['etag', 'link', 'retry-after', 'www-authenticate', 'x-request-id'];
const REQUIRED_REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'if-match',
  'if-none-match',
  'traceparent',
];

// A fresh schema on TEST_DATABASE_URL, else a container, else none: that storage is skipped after a loud warning.
const pg = await provideTestPostgres();
afterAll(async () => {
  await pg?.cleanup();
});

/** The methods of each documented path, as the published document gives them (HEAD wherever GET is). */
const DOCUMENTED_METHODS: readonly (readonly [string, readonly string[]])[] = Object.entries(
  publishedDocument().paths as Record<string, Record<string, unknown>>,
).map(([path, item]) => {
  const methods = Object.keys(item)
    .filter((key) => key !== 'parameters')
    .map((method) => method.toUpperCase());
  return [path, methods.includes('GET') ? [...methods, 'HEAD'] : methods] as const;
});

/** A request path of a documented path: each parameter is 1. */
const requestPathOf = (template: string): string => template.replaceAll(/\{[^}]+\}/g, '1');

/** A comma-separated header as a sorted list of lower-case names. */
function listOf(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
    .sort();
}

/** The CORS headers of an answer (any `Access-Control-*`), by lower-case name. */
function corsHeadersOf(headers: Headers | Record<string, string>): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers] : Object.entries(headers);
  return Object.fromEntries(entries.filter(([name]) => name.toLowerCase().startsWith('access-control-')));
}

/** The headers of a raw HTTP/1.1 answer, by lower-case name. */
function rawHeadersOf(text: string): Record<string, string> {
  const [head = ''] = text.split('\r\n\r\n', 1);
  return Object.fromEntries(
    head
      .split('\r\n')
      .slice(1)
      .map((line) => [
        line.slice(0, line.indexOf(':')).trim().toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
  );
}

/** What every answer to a listed origin carries: the origin allowed, Vary: Origin, the headers exposed, no credentials. */
function expectCorsHeaders(headers: Headers | Record<string, string>, allowed: string): void {
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name.toLowerCase()] ?? null);
  expect(get('Access-Control-Allow-Origin')).toBe(allowed);
  expect(listOf(get('Vary'))).toContain('origin');
  expect(listOf(get('Access-Control-Expose-Headers'))).toEqual(expect.arrayContaining(EXPOSED));
  expect(get('Access-Control-Allow-Credentials')).toBeNull();
}

function preflight(server: TestServer, path: string, origin: string, method = 'GET'): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization,content-type,if-match',
    },
  });
}

function describeCors(storageName: string, openStorage: () => Promise<PlantStorage>): void {
  describe(`CORS on ${storageName}`, () => {
    describe('when CORS_ORIGINS is unset', () => {
      let server: TestServer;
      beforeAll(async () => {
        server = await startTestServer(await openStorage());
        expect((await server.createPlant({ id: 101, name: 'Monstera' })).status).toBe(200);
      });
      afterAll(async () => {
        await server?.stop();
      });

      it('then no answer carries a CORS header or Vary: Origin, whatever the Origin: 200, 401, 404, 405', async () => {
        const answers = await Promise.all([
          fetch(`${server.url}/plants/101`, { headers: { ...auth, Origin: APP } }),
          fetch(`${server.url}/plants/101`, { headers: { Origin: APP } }),
          fetch(`${server.url}/nothing-here`, { headers: { Origin: APP } }),
          fetch(`${server.url}/plants`, { method: 'DELETE', headers: { ...auth, Origin: APP } }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 405]);
        for (const answer of answers) {
          expect(corsHeadersOf(answer.headers)).toEqual({});
          expect(answer.headers.get('vary')).toBeNull();
        }
      });

      it('then a preflight is an OPTIONS like any other: 405 with Allow, no CORS header', async () => {
        const answer = await preflight(server, '/plants/101', APP);
        await expectErrorResponse(answer, 405);
        expect(answer.headers.get('allow')).not.toBeNull();
        expect(corsHeadersOf(answer.headers)).toEqual({});
      });
    });

    describe('when CORS_ORIGINS lists two origins', () => {
      let server: TestServer;
      beforeAll(async () => {
        server = await startTestServer(await openStorage(), { CORS_ORIGINS: `${APP}, ${DEV}` });
        expect((await server.createPlant({ id: 201, name: 'Monstera', tag: 'aroid' })).status).toBe(200);
      });
      afterAll(async () => {
        await server?.stop();
      });

      it('when a listed origin reads a plant, then the answer is 200 with that origin allowed, Vary: Origin and the headers exposed', async () => {
        for (const origin of [APP, DEV]) {
          const answer = await fetch(`${server.url}/plants/201`, { headers: { ...auth, Origin: origin } });
          expect(answer.status).toBe(200);
          expect(await answer.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
          expectCorsHeaders(answer.headers, origin);
        }
      });

      it('when a listed origin creates, lists, heads and deletes, then each answer carries the headers', async () => {
        const headers = { ...auth, Origin: APP };
        const answers = [
          await fetch(`${server.url}/plants`, {
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'application/json' },
            body: JSON.stringify({ id: 202, name: 'Fern' }),
          }),
          await fetch(`${server.url}/plants?limit=1`, { headers }),
          await fetch(`${server.url}/plants/202`, { method: 'HEAD', headers }),
          await fetch(`${server.url}/plants/202`, { method: 'DELETE', headers }),
        ];
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 204]);
        for (const answer of answers) expectCorsHeaders(answer.headers, APP);
        // The next page's Link, exposed to the page's script.
        expect(answers[1]?.headers.get('link')).toMatch(/rel="next"/);
      });

      it('when a listed origin gets a failure (401 without a token, 404, 405, 400 of a parameter, 415), then it carries the headers too', async () => {
        const headers = { Origin: APP };
        const answers = await Promise.all([
          fetch(`${server.url}/plants/201`, { headers }),
          fetch(`${server.url}/nothing-here`, { headers }),
          fetch(`${server.url}/plants/999999`, { headers: { ...headers, ...auth } }),
          fetch(`${server.url}/plants`, { method: 'DELETE', headers: { ...headers, ...auth } }),
          fetch(`${server.url}/plants/abc`, { headers: { ...headers, ...auth } }),
          fetch(`${server.url}/plants`, {
            method: 'POST',
            headers: { ...headers, ...auth, 'Content-Type': 'text/plain' },
            body: '{}',
          }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([401, 404, 404, 405, 400, 415]);
        for (const answer of answers) {
          await expectErrorResponse(answer.clone(), answer.status);
          expectCorsHeaders(answer.headers, APP);
        }
        expect(answers[0]?.headers.get('www-authenticate')).toMatch(/^Bearer realm="plant-store"/);
      });

      it('when a listed origin sends a request the request-head checks refuse (400), then the refusal carries the headers', async () => {
        const text = await rawExchange(
          server.port,
          `GET /plants/201#fragment HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nConnection: close\r\n\r\n`,
        );
        expect(text).toMatch(/^HTTP\/1\.1 400 /);
        expectCorsHeaders(rawHeadersOf(text), APP);
      });

      it('when an origin is not listed (or differs by a slash, a port, the case or the scheme), then no CORS header is sent, only Vary: Origin', async () => {
        for (const origin of [
          STRANGER,
          `${APP}/`,
          `${APP}:443`,
          'https://APP.example',
          'http://app.example',
          'null',
        ]) {
          const answers = await Promise.all([
            fetch(`${server.url}/plants/201`, { headers: { ...auth, Origin: origin } }),
            fetch(`${server.url}/plants/201`, { headers: { Origin: origin } }),
          ]);
          expect(answers.map((answer) => answer.status)).toEqual([200, 401]);
          for (const answer of answers) {
            expect(corsHeadersOf(answer.headers), origin).toEqual({});
            // The answer depends on Origin: a cache must not hand it to a listed origin.
            expect(listOf(answer.headers.get('vary'))).toContain('origin');
          }
        }
      });

      it('when a request has no Origin, then it gets no CORS header', async () => {
        const answer = await fetch(`${server.url}/plants/201`, { headers: auth });
        expect(answer.status).toBe(200);
        expect(corsHeadersOf(answer.headers)).toEqual({});
      });

      it.each(DOCUMENTED_METHODS)(
        'when a listed origin sends a preflight to %s without a token, then it answers 204 with the methods of the path, the request headers allowed and a max age, and no credentials',
        async (template, methods) => {
          const path = requestPathOf(template);
          const answer = await preflight(server, path, DEV);
          expect(answer.status).toBe(204);
          expect(await answer.text()).toBe('');
          const cors = corsHeadersOf(answer.headers);
          expect(cors['access-control-allow-origin']).toBe(DEV);
          expect(listOf(cors['access-control-allow-methods'])).toEqual(listOf(methods.join(',')));
          expect(listOf(cors['access-control-allow-headers'])).toEqual(
            expect.arrayContaining(REQUIRED_REQUEST_HEADERS),
          );
          expect(Number(cors['access-control-max-age'])).toBeGreaterThan(0);
          expect(cors['access-control-allow-credentials']).toBeUndefined();
          expect(listOf(answer.headers.get('vary'))).toContain('origin');

          // The router's own list: what a plain OPTIONS on the path names in its 405's Allow.
          const plain = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { Origin: DEV } });
          await expectErrorResponse(plain, 405);
          expect(listOf(plain.headers.get('allow'))).toEqual(listOf(cors['access-control-allow-methods']));
        },
      );

      it('when the preflight asks for DELETE on /plants/{id}, then the same 204 allows it, and the DELETE that follows carries the headers', async () => {
        expect((await server.createPlant({ id: 203, name: 'Ivy' })).status).toBe(200);
        const answer = await preflight(server, '/plants/203', APP, 'DELETE');
        expect(answer.status).toBe(204);
        expect(listOf(answer.headers.get('access-control-allow-methods'))).toContain('delete');
        const deleted = await fetch(`${server.url}/plants/203`, {
          method: 'DELETE',
          headers: { ...auth, Origin: APP },
        });
        expect(deleted.status).toBe(204);
        expectCorsHeaders(deleted.headers, APP);
      });

      it('when an origin that is not listed sends a preflight, then it is an OPTIONS like any other: 405, no CORS header', async () => {
        const answer = await preflight(server, '/plants/201', STRANGER);
        await expectErrorResponse(answer, 405);
        expect(corsHeadersOf(answer.headers)).toEqual({});
      });

      it('when a listed origin sends a preflight to an unknown path, then it answers 404 without CORS headers', async () => {
        const answer = await preflight(server, '/nothing-here', APP);
        await expectErrorResponse(answer, 404);
        expect(corsHeadersOf(answer.headers)).toEqual({});
      });
    });

    describe('when CORS_ORIGINS is *', () => {
      let server: TestServer;
      beforeAll(async () => {
        server = await startTestServer(await openStorage(), { CORS_ORIGINS: '*' });
        expect((await server.createPlant({ id: 301, name: 'Monstera' })).status).toBe(200);
      });
      afterAll(async () => {
        await server?.stop();
      });

      it('when any origin reads or fails, then the answer allows *, with Vary: Origin and the headers exposed', async () => {
        const answers = await Promise.all([
          fetch(`${server.url}/plants/301`, { headers: { ...auth, Origin: STRANGER } }),
          fetch(`${server.url}/plants/301`, { headers: { Origin: APP } }),
          fetch(`${server.url}/nothing-here`, { headers: { Origin: 'null' } }),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404]);
        for (const answer of answers) expectCorsHeaders(answer.headers, '*');
      });

      it('when any origin sends a preflight without a token, then it answers 204 allowing *, never credentials', async () => {
        const answer = await preflight(server, '/plants', STRANGER, 'POST');
        expect(answer.status).toBe(204);
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
        expect(listOf(answer.headers.get('access-control-allow-methods'))).toContain('post');
        expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      });

      it('when a request has no Origin, then it gets no CORS header', async () => {
        const answer = await fetch(`${server.url}/plants/301`, { headers: auth });
        expect(answer.status).toBe(200);
        expect(corsHeadersOf(answer.headers)).toEqual({});
      });
    });
  });
}

// The 503 of a stopping service is the same whatever the storage: one storage, the quickest to open.
describe('CORS while the service stops', () => {
  it('when the service is stopping and /readyz answers 503, then a listed origin can read it: the headers and Retry-After exposed', async () => {
    // The grace keeps the service serving, /readyz 503, while it stops: long enough for one request.
    const server = await startTestServer(openMemoryPlantStorage(), {
      CORS_ORIGINS: APP,
      SHUTDOWN_GRACE_MS: '5000',
      SHUTDOWN_TIMEOUT_MS: '8000',
    });
    const stopping = server.stop();
    try {
      const answer = await fetch(`${server.url}/readyz`, { headers: { Origin: APP } });
      await expectErrorResponse(answer.clone(), 503);
      expectCorsHeaders(answer.headers, APP);
    } finally {
      await stopping;
    }
  });
});

describeCors('the in-memory storage', async () => openMemoryPlantStorage());
describeCors('embedded PostgreSQL (PGlite, in memory)', () => openPglitePlantStorage());
describe.skipIf(!pg)(`on PostgreSQL (${pg?.source ?? 'none available'})`, () => {
  describeCors('a PostgreSQL server', () =>
    openPostgresPlantStorage({ connectionString: pg?.connectionString ?? '' }),
  );
});
