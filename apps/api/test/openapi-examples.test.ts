// The examples of the published document's error responses are real answers: each is provoked here from
// the running service, and its body must be the example's value word for word.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { configuredCredentials } from '../src/auth/configured-credentials.ts';
import { loadConfig } from '../src/config.ts';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.ts';
import type { ErrorExample } from '../src/operations/error-examples.ts';
import * as operationExamples from '../src/operations/error-examples.ts';
import * as requestExamples from '../src/operations/request-error-examples.ts';
import {
  AUDIENCE,
  type SigningKey,
  signingKey,
  startTestProvider,
  type TestProvider,
} from './support/jwks-server.ts';
import { parseRawResponse, rawExchange } from './support/raw-http.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

// Every example the service publishes: those of the operations and those any request may get.
const errorExamples = { ...operationExamples, ...requestExamples };

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** A memory storage whose every write and readiness check fails with `failure()`. */
function failingStorage(failure: () => Error): PlantStorage {
  const inner = openMemoryPlantStorage();
  return {
    plants: {
      insertIfAbsent: async () => {
        throw failure();
      },
      findById: (id) => inner.plants.findById(id),
      listAfter: (after, limit, maxBytes, tag) => inner.plants.listAfter(after, limit, maxBytes, tag),
      update: (id, change, expected) => inner.plants.update(id, change, expected),
      deleteById: (id, expected) => inner.plants.deleteById(id, expected),
    },
    checkReady: async () => {
      throw failure();
    },
    close: () => inner.close(),
  };
}

const servers: Record<
  'plain' | 'crashing' | 'unreachable' | 'outOfDescriptors' | 'impatient' | 'jwt' | 'keyless',
  TestServer
> = {} as never;
let stopping: { url: string; close(): Promise<void> };
// Identity providers of the tests' own: one that answers, one that never does.
let provider: TestProvider;
let downProvider: TestProvider;
let key: SigningKey;

beforeAll(async () => {
  servers.plain = await startTestServer(openMemoryPlantStorage());
  servers.crashing = await startTestServer(
    failingStorage(() => new Error('relation "plants" does not exist')),
  );
  servers.unreachable = await startTestServer(
    failingStorage(() => new StorageUnavailableError('connect ECONNREFUSED 127.0.0.1:5432')),
  );
  // What a connection to the database fails with once the process has no descriptor left (test/faults/out-of-descriptors.test.ts
  // runs the service out of them for real).
  servers.outOfDescriptors = await startTestServer(
    failingStorage(() =>
      Object.assign(new Error('connect EMFILE 127.0.0.1:5432 - Local (undefined:undefined)'), {
        code: 'EMFILE',
        syscall: 'connect',
      }),
    ),
  );
  servers.impatient = await startTestServer(openMemoryPlantStorage(), {
    HEADERS_TIMEOUT_MS: '100',
    REQUEST_TIMEOUT_MS: '1000',
  });
  provider = await startTestProvider();
  key = await signingKey('ES256', 'examples');
  provider.publish([key]);
  servers.jwt = await startTestServer(openMemoryPlantStorage(), {
    JWT_ISSUER: provider.issuer,
    JWT_AUDIENCE: AUDIENCE,
  });
  for (let tries = 0; tries < 200 && (await fetch(`${servers.jwt.url}/readyz`)).status !== 200; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  downProvider = await startTestProvider();
  downProvider.setDown(true);
  servers.keyless = await startTestServer(openMemoryPlantStorage(), {
    JWT_ISSUER: downProvider.issuer,
    JWT_AUDIENCE: AUDIENCE,
  });
  // A service that has received SIGTERM: startServer's stop() would close the port, so the app is
  // served here with its stopping flag up.
  const app = createApp({
    storage: openMemoryPlantStorage(),
    credentials: configuredCredentials(loadConfig({ API_TOKENS: TOKEN }), pino({ level: 'silent' })).checker,
    bodyLimit: 65_536,
    logger: pino({ level: 'silent' }),
    isShuttingDown: () => true,
  });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  stopping = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  await stopping?.close();
  await provider?.close();
  await downProvider?.close();
});

const answerOf = async (response: Response): Promise<Answer> => ({
  status: response.status,
  body: await response.json(),
});
const post = (body: string | Uint8Array, headers: Record<string, string> = {}, server = servers.plain) =>
  fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...headers },
    body,
  }).then(answerOf);
const raw = async (request: string, server = servers.plain): Promise<Answer> => {
  const { status, body } = parseRawResponse(await rawExchange(server.port, request));
  return { status, body };
};

const {
  BAD_REQUEST_EXAMPLES: badRequest,
  UNAUTHORIZED_EXAMPLES: unauthorized,
  CONFLICT_EXAMPLES: conflict,
  PAYLOAD_TOO_LARGE_EXAMPLES: tooLarge,
  UNSUPPORTED_MEDIA_TYPE_EXAMPLES: mediaType,
  INTERNAL_ERROR_EXAMPLES: internal,
  STORAGE_UNAVAILABLE_EXAMPLES: storageUnavailable,
  NOT_READY_EXAMPLES: notReady,
  NOT_FOUND_EXAMPLES: notFound,
  METHOD_NOT_ALLOWED_EXAMPLES: methodNotAllowed,
  MALFORMED_REQUEST_EXAMPLES: malformed,
  REQUEST_TIMEOUT_EXAMPLES: timeout,
  HEADERS_TOO_LARGE_EXAMPLES: headersTooLarge,
  EXPECTATION_FAILED_EXAMPLES: expectationFailed,
  BAD_PARAMETER_EXAMPLES: badParameter,
  PLANT_NOT_FOUND_EXAMPLES: plantNotFound,
  WRITE_SCOPE_EXAMPLES: writeScope,
  READ_SCOPE_EXAMPLES: readScope,
  KEYS_UNAVAILABLE_EXAMPLES: keysUnavailable,
  NOT_IMPLEMENTED_EXAMPLES: notImplemented,
  VERSION_NOT_SUPPORTED_EXAMPLES: versionNotSupported,
  SERVICE_UNAVAILABLE_EXAMPLES: serviceUnavailable,
  REPLACE_BAD_REQUEST_EXAMPLES: replaceBadRequest,
  PATCH_BAD_REQUEST_EXAMPLES: patchBadRequest,
  PRECONDITION_FAILED_EXAMPLES: preconditionFailed,
  UNSUPPORTED_PATCH_TYPE_EXAMPLES: patchType,
} = errorExamples;

/** A request to a JWT-enabled service with a token of the provider, its claims adjusted. */
const withJwt = async (
  server: TestServer,
  method: string,
  path: string,
  claims: Record<string, unknown>,
  issuer: TestProvider = provider,
) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${await issuer.token(key, claims)}`,
      'Content-Type': 'application/json',
    },
    ...(method === 'POST' ? { body: '{"id":7,"name":"Monstera"}' } : {}),
  }).then(answerOf);

const read = (path: string) =>
  fetch(`${servers.plain.url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then(answerOf);

/** A change of plant `id` on the plain service: PUT with a JSON body, PATCH with a merge patch unless told. */
const change = (method: 'PUT' | 'PATCH', id: number, body: string, headers: Record<string, string> = {}) =>
  fetch(`${servers.plain.url}/plants/${id}`, {
    method,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': method === 'PUT' ? 'application/json' : 'application/merge-patch+json',
      ...headers,
    },
    body,
  }).then(answerOf);

/** For each example, a request that gets exactly that answer. */
const rawPost = (headers: string, body = '{"id":7,"name":"Monstera"}') =>
  raw(
    `POST /plants HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
const JSON_TYPE = 'Content-Type: application/json\r\n';
const AUTH = `Authorization: Bearer ${TOKEN}\r\n`;

const PROVOCATIONS = new Map<ErrorExample, () => Promise<Answer>>([
  [
    unauthorized.expiredJwt,
    () => withJwt(servers.jwt, 'POST', '/plants', { exp: Math.floor(Date.now() / 1000) - 3600 }),
  ],
  [writeScope.noWriteScope, () => withJwt(servers.jwt, 'POST', '/plants', { scope: 'plants:read' })],
  [readScope.noReadScope, () => withJwt(servers.jwt, 'GET', '/plants', { scope: 'plants:write' })],
  [keysUnavailable.keysUnavailable, () => withJwt(servers.keyless, 'GET', '/plants', {}, downProvider)],
  [notReady.keysNotLoaded, () => fetch(`${servers.keyless.url}/readyz`).then(answerOf)],
  [badParameter.idNotDecimal, () => read('/plants/abc')],
  [badParameter.idBeyondInt64, () => read('/plants/9223372036854775808')],
  [badParameter.limitOutOfRange, () => read('/plants?limit=0')],
  [badParameter.limitTwice, () => read('/plants?limit=1&limit=2')],
  [badParameter.afterNotDecimal, () => read('/plants?after=x')],
  [badParameter.tagTwice, () => read('/plants?tag=a&tag=b')],
  [badParameter.tagNotUtf8, () => read('/plants?tag=%FF')],
  [badParameter.tagWithNul, () => read('/plants?tag=%00')],
  [replaceBadRequest.otherId, () => change('PUT', 7, '{"id":8,"name":"Monstera"}')],
  [replaceBadRequest.tagNull, () => change('PUT', 7, '{"name":"Monstera","tag":null}')],
  [patchBadRequest.tagNumber, () => change('PATCH', 7, '{"tag":7}')],
  [
    preconditionFailed.otherContent,
    async () => {
      expect((await post('{"id":7,"name":"Monstera"}')).status).toBe(200);
      return change('PUT', 7, '{"name":"Fern"}', { 'If-Match': '"an-older-etag"' });
    },
  ],
  [preconditionFailed.noPlant, () => change('PATCH', 8, '{"name":"Fern"}', { 'If-Match': '*' })],
  [
    patchType.notMergePatch,
    () => change('PATCH', 7, '{"name":"Fern"}', { 'Content-Type': 'application/json' }),
  ],
  [plantNotFound.noPlant, () => read('/plants/8')],
  [badRequest.authorizationTwice, () => rawPost(`${AUTH}Authorization: Bearer other\r\n${JSON_TYPE}`)],
  [badRequest.contentTypeTwice, () => rawPost(`${AUTH}${JSON_TYPE}Content-Type: text/plain\r\n`)],
  [badRequest.emptyBody, () => post('')],
  [badRequest.notUtf8, () => post(new Uint8Array([0x7b, 0xff, 0x7d]))],
  [badRequest.notJson, () => post('{"id": 7,')],
  [badRequest.trailingData, () => post('{"id":7,"name":"Monstera"} x')],
  [badRequest.notAnObject, () => post('[{"id":7,"name":"Monstera"}]')],
  [badRequest.missingName, () => post('{"id":7}')],
  [badRequest.idAString, () => post('{"id":"7","name":"Monstera"}')],
  [badRequest.idFraction, () => post('{"id":7.5,"name":"Monstera"}')],
  [badRequest.idBeyondInt64, () => post('{"id":9223372036854775808,"name":"Monstera"}')],
  [badRequest.nameNull, () => post('{"id":7,"name":null}')],
  [badRequest.nameWithNul, () => post('{"id":7,"name":"Mon\\u0000stera"}')],
  [unauthorized.noToken, () => fetch(`${servers.plain.url}/metrics`).then(answerOf)],
  [unauthorized.wrongToken, () => post('{}', { Authorization: 'Bearer not-the-token' })],
  [unauthorized.notBearer, () => post('{}', { Authorization: 'Basic dXNlcjpwYXNz' })],
  [
    conflict.otherContent,
    async () => {
      expect((await post('{"id":7,"name":"Monstera"}')).status).toBe(200);
      return post('{"id":7,"name":"Fern"}');
    },
  ],
  [tooLarge.overLimit, () => post(`{"id":7,"name":"${'a'.repeat(70_000)}"}`)],
  [mediaType.notJson, () => post('{"id":7,"name":"Monstera"}', { 'Content-Type': 'text/plain' })],
  [mediaType.encoded, () => post('{"id":7,"name":"Monstera"}', { 'Content-Encoding': 'gzip' })],
  [internal.fault, () => post('{"id":7,"name":"Monstera"}', {}, servers.crashing)],
  [storageUnavailable.unavailable, () => post('{"id":7,"name":"Monstera"}', {}, servers.unreachable)],
  [
    serviceUnavailable.outOfDescriptors,
    () => post('{"id":7,"name":"Monstera"}', {}, servers.outOfDescriptors),
  ],
  [notReady.unavailable, () => fetch(`${servers.unreachable.url}/readyz`).then(answerOf)],
  [notReady.notReady, () => fetch(`${servers.crashing.url}/readyz`).then(answerOf)],
  [notReady.stopping, () => fetch(`${stopping.url}/readyz`).then(answerOf)],
  [notFound.unknownPath, () => fetch(`${servers.plain.url}/plant`).then(answerOf)],
  [
    methodNotAllowed.otherMethod,
    () => fetch(`${servers.plain.url}/plants`, { method: 'PUT' }).then(answerOf),
  ],
  [malformed.malformed, () => raw('GET /plants HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n')],
  [malformed.noHost, () => raw('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')],
  [malformed.connect, () => raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')],
  [
    malformed.hostTwice,
    () => raw('GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n'),
  ],
  [malformed.hostInvalid, () => raw('GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n')],
  [
    malformed.transferCodingNotLast,
    () => raw(`POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}${JSON_TYPE}Transfer-Encoding: gzip\r\n\r\n`),
  ],
  [malformed.fragment, () => raw('GET /healthz#top HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')],
  [
    notImplemented.transferCoding,
    () =>
      raw(`POST /plants HTTP/1.1\r\nHost: x\r\n${AUTH}${JSON_TYPE}Transfer-Encoding: gzip, chunked\r\n\r\n`),
  ],
  [versionNotSupported.otherVersion, () => raw('GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n')],
  [
    expectationFailed.otherExpectation,
    () => raw('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n'),
  ],
  // Headers that never end: the service gives up after HEADERS_TIMEOUT_MS.
  [timeout.tooSlow, () => raw('POST /plants HTTP/1.1\r\nHost: x\r\n', servers.impatient)],
  [
    headersTooLarge.tooLarge,
    () => raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
  ],
]);

const everyExample: [string, ErrorExample][] = Object.entries(errorExamples).flatMap(([group, examples]) =>
  Object.entries(examples as Record<string, ErrorExample>).map(([name, example]): [string, ErrorExample] => [
    `${group}.${name}`,
    example,
  ]),
);

/** The status of each answer any request may get (the document's components.responses). */
const COMPONENT_STATUSES: Readonly<Record<string, number>> = {
  NotFound: 404,
  MethodNotAllowed: 405,
  MalformedRequest: 400,
  RequestTimeout: 408,
  RequestHeaderFieldsTooLarge: 431,
  ExpectationFailed: 417,
  NotImplemented: 501,
  ServiceUnavailable: 503,
  HttpVersionNotSupported: 505,
  CorsPreflight: 204,
};

describe('the examples of the error responses', () => {
  it('when the examples are listed, then each has a request here that provokes it', () => {
    const unprovoked = everyExample.filter(([, example]) => !PROVOCATIONS.has(example)).map(([name]) => name);
    expect(unprovoked).toEqual([]);
  });

  it.each(everyExample)(
    'when %s is provoked, then the service answers exactly its example',
    async (_name, example) => {
      const provoke = PROVOCATIONS.get(example);
      if (provoke === undefined) throw new Error('no provocation (see the test above)');
      expect(await provoke()).toEqual({ status: example.value.error, body: example.value });
    },
  );

  it('when the document is read, then every error response has examples of its own, each with its status, all from these', () => {
    const known = new Set<unknown>(everyExample.map(([, example]) => example));
    const document = buildOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
      components: { responses: Record<string, Response> };
    };
    type Response = { content?: Record<string, { examples?: Record<string, ErrorExample> }> };
    const responses: [string, string, Response][] = [
      ...Object.entries(document.paths).flatMap(([path, operations]) =>
        // A path's `parameters` are shared by its operations, not one of them.
        Object.entries(operations)
          .filter(([key]) => key !== 'parameters')
          .flatMap(([method, operation]) =>
            Object.entries(operation.responses).map(([status, response]): [string, string, Response] => [
              `${method.toUpperCase()} ${path} ${status}`,
              status,
              response,
            ]),
          ),
      ),
      ...Object.entries(document.components.responses).map(([name, response]): [string, string, Response] => [
        name,
        String(COMPONENT_STATUSES[name]),
        response,
      ]),
    ];
    const failures = responses.filter(([, status]) => Number(status) >= 400);
    expect(failures.length).toBeGreaterThan(10);
    for (const [where, status, response] of failures) {
      const examples = Object.values(response.content?.['application/json']?.examples ?? {});
      expect(examples.length, where).toBeGreaterThan(0);
      for (const example of examples) {
        expect(example.value.error, where).toBe(Number(status));
        expect(known.has(example), where).toBe(true);
      }
    }
  });
});
