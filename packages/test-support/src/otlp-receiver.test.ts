import { request } from 'node:http';
import {
  type Context,
  context,
  type HrTime,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';
import { byName, spanTree } from './span-tree.ts';

type ExporterConfig = NonNullable<ConstructorParameters<typeof ProtobufExporter>[0]>;
const GZIP = 'gzip' as NonNullable<ExporterConfig['compression']>;

const EXPORTERS = [
  {
    encoding: 'protobuf',
    contentType: 'application/x-protobuf',
    make: (c: ExporterConfig) => new ProtobufExporter(c),
  },
  { encoding: 'json', contentType: 'application/json', make: (c: ExporterConfig) => new JsonExporter(c) },
] as const;

const SCOPE = { name: '@plant-store/otlp-receiver-test', version: '1.2.3' };
const RESOURCE = { 'service.name': 'plant-store-api', 'service.version': '1.0.0', 'process.pid': 4242 };

let receiver: OtlpReceiver | undefined;
const exporters: SpanExporter[] = [];

afterEach(async () => {
  await Promise.all(exporters.splice(0).map((exporter) => exporter.shutdown()));
  await receiver?.close();
  receiver = undefined;
});

async function start(): Promise<OtlpReceiver> {
  receiver = await startOtlpReceiver();
  return receiver;
}

function exporterFor(encoding: 'protobuf' | 'json', config: ExporterConfig): SpanExporter {
  const exporter = EXPORTERS.find((entry) => entry.encoding === encoding)?.make(config);
  if (exporter === undefined) throw new Error(`no ${encoding} exporter`);
  exporters.push(exporter);
  return exporter;
}

function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Seconds after a fixed epoch, as the SDK's time: spans with set times decode to known nanoseconds. */
const at = (seconds: number, nanoseconds = 250): HrTime => [1_700_000_000 + seconds, nanoseconds];

/**
 * Two traces, ended, through a provider of its own (nothing registered globally): a request whose
 * insert fails, and a delivery linked to it, with every attribute type the API allows.
 */
function endedSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes(RESOURCE),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer(SCOPE.name, SCOPE.version);
  const under = (parent: Span): Context => trace.setSpan(context.active(), parent);

  const server = tracer.startSpan('POST /plants', {
    kind: SpanKind.SERVER,
    startTime: at(1),
    attributes: {
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      'server.address': '',
      'plant.ratio': 0.25,
      'plant.negative': -7,
      'plant.fresh': true,
      'plant.tags': ['fern', 'moss'],
      'plant.sizes': [1, 2.5, -3],
      'plant.flags': [true, false],
    },
  });
  const commit = tracer.startSpan(
    'group commit',
    { kind: SpanKind.INTERNAL, startTime: at(2) },
    under(server),
  );
  const insert = tracer.startSpan(
    'INSERT plants',
    { kind: SpanKind.CLIENT, startTime: at(3), attributes: { 'db.system.name': 'postgresql' } },
    under(commit),
  );
  insert.addEvent(
    'exception',
    { 'exception.type': 'PlantConflict', 'exception.escaped': false },
    at(3, 500_000_000),
  );
  insert.setStatus({ code: SpanStatusCode.ERROR, message: 'duplicate key' });
  insert.end(at(4));
  commit.setStatus({ code: SpanStatusCode.OK });
  commit.end(at(5));
  server.end(at(6));

  const link: Link = { context: server.spanContext(), attributes: { 'messaging.message.id': 'event-1' } };
  const publish = tracer.startSpan('publish plant.created', {
    kind: SpanKind.PRODUCER,
    startTime: at(7),
    root: true,
  });
  const deliver = tracer.startSpan(
    'deliver plant.created',
    { kind: SpanKind.CONSUMER, startTime: at(8), links: [link] },
    under(publish),
  );
  deliver.end(at(9));
  publish.end(at(10));
  return memory.getFinishedSpans();
}

describe('startOtlpReceiver', () => {
  it('when both real exporters send the same spans, then each decodes to the same tree, ids, links, attributes, event, statuses, times and resource', async () => {
    const otlp = await start();
    const spans = endedSpans();
    for (const { encoding } of EXPORTERS) {
      const result = await exportSpans(exporterFor(encoding, { url: `${otlp.url}/v1/traces` }), spans);
      expect(result.code, `${encoding}: ${result.error}`).toBe(ExportResultCode.SUCCESS);
    }

    const [fromProtobuf, fromJson] = otlp.exports;
    expect(otlp.exports.map(({ encoding, status }) => ({ encoding, status }))).toEqual([
      { encoding: 'protobuf', status: 200 },
      { encoding: 'json', status: 200 },
    ]);
    expect(fromJson?.spans).toStrictEqual(fromProtobuf?.spans);

    const received = fromProtobuf?.spans ?? [];
    expect(spanTree(received)).toBe(
      [
        'SERVER POST /plants',
        '  INTERNAL group commit',
        '    CLIENT INSERT plants',
        'PRODUCER publish plant.created',
        '  CONSUMER deliver plant.created',
      ].join('\n'),
    );
    const sent = (name: string) => {
      const span = spans.find((candidate) => candidate.name === name);
      if (span === undefined) throw new Error(`no span ${name} was made`);
      return span.spanContext();
    };
    expect(byName(received, 'POST /plants')).toStrictEqual({
      traceId: sent('POST /plants').traceId,
      spanId: sent('POST /plants').spanId,
      name: 'POST /plants',
      kind: 'SERVER',
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': 201n,
        'server.address': '',
        'plant.ratio': 0.25,
        'plant.negative': -7n,
        'plant.fresh': true,
        'plant.tags': ['fern', 'moss'],
        'plant.sizes': [1n, 2.5, -3n],
        'plant.flags': [true, false],
      },
      links: [],
      events: [],
      status: { code: 'UNSET' },
      startTimeUnixNano: 1_700_000_001_000_000_250n,
      endTimeUnixNano: 1_700_000_006_000_000_250n,
      resource: { ...RESOURCE, 'process.pid': 4242n },
      scope: SCOPE,
    });
    expect(byName(received, 'INSERT plants')).toMatchObject({
      traceId: sent('POST /plants').traceId,
      parentSpanId: sent('group commit').spanId,
      events: [
        { name: 'exception', attributes: { 'exception.type': 'PlantConflict', 'exception.escaped': false } },
      ],
      status: { code: 'ERROR', message: 'duplicate key' },
      startTimeUnixNano: 1_700_000_003_000_000_250n,
    });
    expect(byName(received, 'group commit').status).toStrictEqual({ code: 'OK' });
    const deliver = byName(received, 'deliver plant.created');
    expect(deliver.traceId).not.toBe(sent('POST /plants').traceId);
    expect(deliver.links).toStrictEqual([
      {
        traceId: sent('POST /plants').traceId,
        spanId: sent('POST /plants').spanId,
        attributes: { 'messaging.message.id': 'event-1' },
      },
    ]);
    expect(spanTree(received, deliver.traceId)).toBe(
      ['PRODUCER publish plant.created', '  CONSUMER deliver plant.created'].join('\n'),
    );
  });

  describe.each(EXPORTERS)('with the $encoding exporter', ({ encoding, contentType }) => {
    it('when spans end under a provider that exports each, then waitForSpans resolves with them and the headers arrive', async () => {
      const otlp = await start();
      const exporter = exporterFor(encoding, {
        url: `${otlp.url}/v1/traces`,
        headers: { authorization: 'Bearer collector-token', 'x-tenant': 'plants' },
      });
      const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
      const tracer = provider.getTracer(SCOPE.name);
      const parent = tracer.startSpan('parent');
      tracer.startSpan('child', {}, trace.setSpan(context.active(), parent)).end();
      parent.end();

      // Each span is its own export, and two requests may arrive in either order: wait for both.
      const spans = await otlp.waitForSpans((received) => received.length === 2);
      expect(spanTree(spans)).toBe('INTERNAL parent\n  INTERNAL child');
      expect(byName(spans, 'child').scope).toStrictEqual({ name: SCOPE.name });
      const sent = {
        'content-type': contentType,
        authorization: 'Bearer collector-token',
        'x-tenant': 'plants',
      };
      expect(otlp.exports.map(({ headers }) => headers)).toEqual([
        expect.objectContaining(sent),
        expect.objectContaining(sent),
      ]);
      await provider.shutdown();
    });

    it('when the exporter gzips, then the spans decode as from a plain body', async () => {
      const otlp = await start();
      const spans = endedSpans();
      const plain = exporterFor(encoding, { url: `${otlp.url}/v1/traces` });
      const gzipped = exporterFor(encoding, { url: `${otlp.url}/v1/traces`, compression: GZIP });
      expect((await exportSpans(gzipped, spans)).code).toBe(ExportResultCode.SUCCESS);
      expect((await exportSpans(plain, spans)).code).toBe(ExportResultCode.SUCCESS);

      const [fromGzip, fromPlain] = otlp.exports;
      expect(fromGzip?.headers['content-encoding']).toBe('gzip');
      expect(fromPlain?.headers['content-encoding']).toBeUndefined();
      expect(fromGzip?.spans).toHaveLength(spans.length);
      expect(fromGzip?.spans).toStrictEqual(fromPlain?.spans);
    });

    it("when the receiver hangs, then the export fails by the exporter's timeout and close still ends", async () => {
      const otlp = await start();
      otlp.behaviour = 'hang';
      const exporter = exporterFor(encoding, { url: `${otlp.url}/v1/traces`, timeoutMillis: 500 });

      const result = await exportSpans(exporter, endedSpans());

      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(result.error?.message).toBe('Request timed out');
      // Whether the body was read before the exporter gave up is the machine's timing: not asserted here.
      expect(otlp.exports.map(({ status }) => status)).toEqual(otlp.exports.map(() => undefined));
      expect(otlp.spans()).toEqual([]);
      await otlp.close();
    });

    it('when the receiver answers 503, then the export fails and no span counts as received until it accepts', async () => {
      const otlp = await start();
      // A Retry-After past the exporter's timeout (10 s by default) makes it give up after one try,
      // whatever the machine's speed: a short timeout can run out before the first answer on a busy one.
      otlp.behaviour = { status: 503, retryAfterSeconds: 3600 };
      const exporter = exporterFor(encoding, { url: `${otlp.url}/v1/traces` });

      const result = await exportSpans(exporter, endedSpans());

      expect(result.code).toBe(ExportResultCode.FAILED);
      expect(result.error?.message).toBe('Export failed with retryable status');
      expect(otlp.exports.map(({ status }) => status)).toEqual([503]);
      expect(otlp.spans()).toEqual([]);

      otlp.behaviour = 'accept';
      const patient = exporterFor(encoding, { url: `${otlp.url}/v1/traces` });
      expect((await exportSpans(patient, endedSpans())).code).toBe(ExportResultCode.SUCCESS);
      expect(otlp.spans()).toHaveLength(5);
    });
  });

  it('when a request is not a POST of OTLP to /v1/traces, then it is answered 4xx with the reason', async () => {
    const otlp = await start();
    const post = (body: string | Uint8Array, headers: Record<string, string>, path = '/v1/traces') =>
      fetch(`${otlp.url}${path}`, { method: 'POST', headers, body });
    const answers = [
      await post('{}', { 'content-type': 'application/json' }, '/v1/metrics'),
      await fetch(`${otlp.url}/v1/traces`),
      await post('{}', { 'content-type': 'text/plain' }),
      await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' }),
      await post('{', { 'content-type': 'application/json' }),
      await post('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}', {
        'content-type': 'application/json',
      }),
      await post(new Uint8Array([0x0a, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' }),
      await post(new Uint8Array([0x1f, 0x8b, 0x00]), {
        'content-type': 'application/x-protobuf',
        'content-encoding': 'gzip',
      }),
    ];

    const seen = await Promise.all(
      answers.map(async (answer) => `${answer.status} ${(await answer.text()).split(':')[0]}`),
    );
    expect(seen).toEqual([
      '404 no /v1/metrics here, only /v1/traces',
      '405 GET /v1/traces',
      '415 content-type text/plain',
      '415 content-encoding br',
      '400 undecodable json body',
      '400 undecodable json body',
      '400 undecodable protobuf body',
      '400 undecodable protobuf body',
    ]);
    expect(answers[1]?.headers.get('allow')).toBe('POST');
    expect(otlp.exports).toEqual([]);
  });

  it('when OTLP/JSON comes as other exporters write it (upper-case hex, int64 as strings, kvlist, bytes, unknown fields), then it decodes', async () => {
    const otlp = await start();
    const traceId = '5B8EFFF798038103D269B633813FC60C';
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'other' } }] },
          scopeSpans: [
            {
              scope: { name: 'other-sdk' },
              spans: [
                {
                  traceId,
                  spanId: 'EEE19B7EC3C1B174',
                  parentSpanId: '',
                  name: 'checkout',
                  kind: 3,
                  startTimeUnixNano: '1544712660000000000',
                  endTimeUnixNano: '1544712661000000000',
                  attributes: [
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'small', value: { intValue: 7 } },
                    {
                      key: 'map',
                      value: { kvlistValue: { values: [{ key: 'a', value: { boolValue: true } }] } },
                    },
                    { key: 'raw', value: { bytesValue: 'AQID' } },
                    { key: 'empty', value: {} },
                  ],
                  status: { code: 2 },
                  someFutureField: { ignored: true },
                },
              ],
            },
          ],
        },
      ],
    };

    const answer = await fetch(`${otlp.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({});
    expect(otlp.spans()).toStrictEqual([
      {
        traceId: traceId.toLowerCase(),
        spanId: 'eee19b7ec3c1b174',
        name: 'checkout',
        kind: 'CLIENT',
        attributes: {
          big: 9007199254740993n,
          small: 7n,
          map: { a: true },
          raw: new Uint8Array([1, 2, 3]),
          empty: null,
        },
        links: [],
        events: [],
        status: { code: 'ERROR' },
        startTimeUnixNano: 1544712660000000000n,
        endTimeUnixNano: 1544712661000000000n,
        resource: { 'service.name': 'other' },
        scope: { name: 'other-sdk' },
      },
    ]);
  });

  it('when a protobuf export is accepted, then the answer is an empty ExportTraceServiceResponse', async () => {
    const otlp = await start();
    const answer = await fetch(`${otlp.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array(),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await answer.arrayBuffer()).byteLength).toBe(0);
    expect(otlp.exports).toEqual([
      { encoding: 'protobuf', headers: expect.any(Object), spans: [], status: 200 },
    ]);
  });

  it('when a request is held unanswered, then it was read, and close destroys its socket and ends', async () => {
    const otlp = await start();
    otlp.behaviour = 'hang';
    const { promise: answered, resolve, reject } = Promise.withResolvers<number | undefined>();
    const held = request(`${otlp.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    held.on('response', (response) => resolve(response.statusCode));
    held.on('error', reject);
    held.end('{"resourceSpans":[]}');
    await eventually(() => otlp.exports.length === 1, 'the held export was read');
    expect(otlp.exports[0]).toMatchObject({ encoding: 'json', spans: [], status: undefined });

    await otlp.close();

    await expect(answered).rejects.toThrow('socket hang up');
  });

  it('when awaited spans have not come by the time the receiver closes, then waitForSpans rejects showing the spans it got', async () => {
    const otlp = await start();
    const exporter = exporterFor('json', { url: `${otlp.url}/v1/traces` });
    await exportSpans(exporter, endedSpans());
    const waiting = otlp.waitForSpans((spans) => spans.some((span) => span.name === 'never made'));

    await otlp.close();

    await expect(waiting).rejects.toThrow(
      [
        'the awaited spans did not arrive: the receiver closed; 5 spans accepted:',
        'SERVER POST /plants',
        '  INTERNAL group commit',
        '    CLIENT INSERT plants',
        'PRODUCER publish plant.created',
        '  CONSUMER deliver plant.created',
      ].join('\n'),
    );
  });
});
