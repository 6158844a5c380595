// The server span of each request, in this process with an in-memory tracer: the failures a client
// cannot cause on purpose (a storage outage, a fault) and the odd requests, which traces.test.ts's
// processes do not reach.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { type InMemoryTracing, startInMemoryTracing } from '@plant-store/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

/** Memory storage whose creates throw `failure` while it is set. */
function storageFailingWith(): { storage: PlantStorage; failure: Error | undefined } {
  const inner = openMemoryPlantStorage();
  const state: { storage: PlantStorage; failure: Error | undefined } = {
    failure: undefined,
    storage: {
      ...inner,
      plants: {
        ...inner.plants,
        insertIfAbsent: async (plant, created) => {
          if (state.failure !== undefined) throw state.failure;
          return inner.plants.insertIfAbsent(plant, created);
        },
      },
    },
  };
  return state;
}

/** A request with any method Node's client sends, answered to its end. */
function send(url: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}${path}`,
      { method, headers: { authorization: `Bearer ${TOKEN}` } },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('the server span of a request', () => {
  let tracing: InMemoryTracing;
  let server: TestServer;
  const fake = storageFailingWith();
  beforeAll(async () => {
    tracing = startInMemoryTracing();
    server = await startTestServer(fake.storage);
  });
  afterAll(async () => {
    await server?.stop();
    await tracing?.stop();
  });
  beforeEach(() => {
    fake.failure = undefined;
    tracing.reset();
  });

  /** The one server span ended so far. */
  function serverSpan(): ReadableSpan {
    const spans = tracing.spans();
    expect(spans).toHaveLength(1);
    return spans[0] as ReadableSpan;
  }

  it("when a request is traced, then its span's instrumentation scope is the package, by the name and version package.json says", async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect((await server.createPlant({ id: 3, name: 'c' })).status).toBe(200);
    expect(serverSpan().instrumentationScope).toStrictEqual({
      name: manifest.name,
      version: manifest.version,
      schemaUrl: undefined,
    });
  });

  it('when storage is down (503), then the span fails with the exception as its error type', async () => {
    fake.failure = new StorageUnavailableError('connect ECONNREFUSED 10.0.0.7:5432');
    const response = await server.createPlant({ id: 1, name: 'a' });
    expect(response.status).toBe(503);
    const span = serverSpan();
    expect(span.name).toBe('POST /plants');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'http.response.status_code': 503,
      'error.type': 'StorageUnavailableError',
    });
    expect(span.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('when storage throws something unexpected (500), then the span fails with its type, and the log line names the span', async () => {
    fake.failure = new TypeError('a bug');
    const response = await server.createPlant({ id: 2, name: 'b' }, { 'X-Request-Id': 'span-crash-1' });
    expect(response.status).toBe(500);
    const span = serverSpan();
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': 'TypeError' });
    expect(span.attributes['plant_store.request_id']).toBe('span-crash-1');
    const line = server.logs.requests().find((logged) => logged.requestId === 'span-crash-1');
    expect(line).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
  });

  it('when no route matches (404), then the span is named by its method alone, with no route', async () => {
    expect(await send(server.url, 'GET', '/trees?x=1')).toBe(404);
    const span = serverSpan();
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes).toMatchObject({ 'url.path': '/trees', 'http.response.status_code': 404 });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('when the method is one the conventions do not name, then it is _OTHER, the original kept, and the span is HTTP', async () => {
    expect(await send(server.url, 'PROPFIND', '/plants')).toBe(405);
    const span = serverSpan();
    expect(span.name).toBe('HTTP');
    expect(span.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PROPFIND',
      'http.route': '/plants',
    });
  });
});
