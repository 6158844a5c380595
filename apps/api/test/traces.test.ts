// Traces as a collector gets them: the service started as `pnpm start` starts it (main.ts, a process of
// its own, so that the OpenTelemetry SDK it registers is its own), exporting over OTLP/HTTP to a
// receiver in this test that decodes what arrives.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUSY_MACHINE_SLACK_MS,
  eventually,
  freePort,
  newSecret,
  type OtlpReceiver,
  provideTestPostgres,
  type Received,
  type ReceivedExport,
  type ReceivedSpan,
  randomPlantId,
  startOtlpReceiver,
  startTestReceiver,
  type TestReceiver,
} from '@plant-store/test-support';
import { jobQueueSchema } from '@plant-store/webhooks/pg-boss';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportDrill } from './support/drill-report.ts';
import { killLeftoverRuns, listeningUrl, type Run, runMain } from './support/run-main.ts';

const TOKEN = 'traces-test-token';
// Generous: each storage's service starts in a process of its own, and all packages' tests share two cores.
const TIMEOUT = { timeout: 120_000 };

const postgres = await provideTestPostgres();
afterAll(async () => {
  await postgres?.cleanup();
});
// After the file, not each test: a storage's service lives through its describe.
afterAll(killLeftoverRuns);

/** A W3C traceparent of a caller's own sampled span: the ids a test looks its trace up by. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

interface Traced {
  readonly run: Run;
  readonly url: string;
  request(path: string, init?: RequestInit): Promise<{ status: number; traceId: string; spanId: string }>;
  /** The trace's spans once its server span and `more` have arrived. */
  trace(traceId: string, more?: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
}

/** The service in a process of its own, tracing to `collector` (which must listen on 127.0.0.2: see startOtlpReceiver). */
async function startTraced(env: NodeJS.ProcessEnv, collector: OtlpReceiver | string): Promise<Traced> {
  const run = runMain({
    PORT: '0',
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'info',
    // Spans leave within 50 ms of their end: a test waits for them, never for a timer of 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_EXPORTER_OTLP_ENDPOINT: typeof collector === 'string' ? collector : collector.url,
    ...env,
  });
  const url = await listeningUrl(run);
  const receiver = typeof collector === 'string' ? undefined : collector;
  return {
    run,
    url,
    async request(path, init = {}) {
      const caller = callerContext();
      const response = await fetch(`${url}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          traceparent: caller.traceparent,
          ...(init.headers as Record<string, string> | undefined),
        },
      });
      await response.arrayBuffer();
      return { status: response.status, traceId: caller.traceId, spanId: caller.spanId };
    },
    async trace(traceId, more = () => true) {
      if (receiver === undefined) throw new Error('this service traces to no receiver');
      const ofTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
      return ofTrace(
        await receiver.waitForSpans((spans) => {
          const trace = ofTrace(spans);
          return trace.some((span) => span.kind === 'SERVER') && more(trace);
        }),
      );
    },
  };
}

// A caller's W3C baggage, which must go no further than the service.
const BAGGAGE = 'session=SECRET123,user.id=4242';

const createBody = (id: bigint, name = 'Monstera') => `{"id":${id},"name":"${name}","tag":"aroid"}`;

function serverSpanOf(spans: readonly ReceivedSpan[]): ReceivedSpan {
  const server = spans.filter((span) => span.kind === 'SERVER');
  expect(server).toHaveLength(1);
  return server[0] as ReceivedSpan;
}

const STORAGES: [string, () => Promise<{ env: NodeJS.ProcessEnv; cleanup(): Promise<void> } | undefined>][] =
  [
    ['memory', async () => ({ env: { DATABASE_URL: 'memory:' }, cleanup: async () => {} })],
    [
      'PGlite',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'plant-store-traces-'));
        return {
          env: { DATABASE_URL: `pglite:${dir}` },
          cleanup: () => rm(dir, { recursive: true, force: true }),
        };
      },
    ],
    [
      'PostgreSQL',
      async () => postgres && { env: { DATABASE_URL: postgres.connectionString }, cleanup: async () => {} },
    ],
  ];

describe.each(STORAGES)('traces of the service on %s', TIMEOUT, (storageName, provide) => {
  let collector: OtlpReceiver;
  let webhooks: TestReceiver;
  let service: Traced;
  let storage: Awaited<ReturnType<typeof provide>>;
  const secret = newSecret();
  const database = storageName === 'memory' ? undefined : storageName;

  beforeAll(async () => {
    storage = await provide();
    if (storage === undefined) return;
    collector = await startOtlpReceiver({ host: '127.0.0.2' });
    webhooks = await startTestReceiver([secret]);
    service = await startTraced(
      { ...storage.env, WEBHOOK_URLS: webhooks.url, WEBHOOK_SECRET: secret },
      collector,
    );
  }, 120_000);
  afterAll(async () => {
    if (storage === undefined) return;
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
    await collector.close();
    await webhooks.close();
    await storage.cleanup();
  });

  it('a create is a SERVER span named by its route, the child of the caller span, with the HTTP attributes', async (context) => {
    if (storage === undefined) return context.skip();
    const id = randomPlantId();
    const created = await service.request('/plants', { method: 'POST', body: createBody(id) });
    expect(created.status).toBe(200);
    const spans = await service.trace(
      created.traceId,
      (trace) => database === undefined || trace.some((span) => span.name === 'group commit'),
    );
    const server = serverSpanOf(spans);
    expect(server).toMatchObject({
      name: 'POST /plants',
      parentSpanId: created.spanId,
      status: { code: 'UNSET' },
      resource: { 'service.name': 'plant-store' },
    });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/plants',
      'http.response.status_code': 200n,
      'url.path': '/plants',
      'url.scheme': 'http',
    });
    expect(server.attributes['error.type']).toBeUndefined();
    if (database !== undefined) {
      // The INSERT ran in a group commit batch the create opened (alone, it served only this create).
      const batch = spans.find((span) => span.parentSpanId === server.spanId && span.name === 'group commit');
      expect(batch).toMatchObject({ kind: 'INTERNAL', attributes: { 'db.operation.batch.size': 1n } });
      expect(batch?.links).toEqual([
        expect.objectContaining({ traceId: created.traceId, spanId: server.spanId }),
      ]);
      const statements = spans.filter((span) => span.parentSpanId === batch?.spanId);
      expect(statements.map((span) => [span.kind, span.name])).toEqual([
        ['CLIENT', 'INSERT plants INSERT plant_events SELECT inserted SELECT inserted'],
      ]);
      expect(statements[0]?.attributes).toMatchObject({
        'db.system.name': 'postgresql',
        'db.query.text': expect.stringContaining('insert into "plants"'),
      });
    }
    // The request's log line names the trace and the span.
    const line = service.run
      .stdout()
      .split('\n')
      .find((text) => text.includes(`"trace_id":"${created.traceId}"`));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ msg: 'request', span_id: server.spanId, status: 200 });
  });

  it('a refused create (401, 400, 409) is its SERVER span with the status, and no error type: the client erred', async (context) => {
    if (storage === undefined) return context.skip();
    const id = randomPlantId();
    const unauthorized = await service.request('/plants', {
      method: 'POST',
      body: createBody(id),
      headers: { authorization: 'Bearer not-a-token' },
    });
    const invalid = await service.request('/plants', { method: 'POST', body: '{"id":' });
    expect((await service.request('/plants', { method: 'POST', body: createBody(id) })).status).toBe(200);
    const conflict = await service.request('/plants', { method: 'POST', body: createBody(id, 'Other') });
    for (const [refused, status] of [
      [unauthorized, 401],
      [invalid, 400],
      [conflict, 409],
    ] as const) {
      expect(refused.status).toBe(status);
      const spans = await service.trace(refused.traceId);
      const server = serverSpanOf(spans);
      expect(server.name).toBe('POST /plants');
      expect(server.attributes['http.response.status_code']).toBe(BigInt(status));
      expect(server.attributes['error.type']).toBeUndefined();
      expect(server.status.code).toBe('UNSET');
      // Refused before storage is asked: nothing below the server span.
      if (status !== 409) expect(spans.filter((span) => span.parentSpanId === server.spanId)).toEqual([]);
    }
  });

  it('a read and a list page are SERVER spans named by their routes, as the contract writes them', async (context) => {
    if (storage === undefined) return context.skip();
    const id = randomPlantId();
    await service.request('/plants', { method: 'POST', body: createBody(id) });
    const read = await service.request(`/plants/${id}`);
    const list = await service.request('/plants?limit=2');
    expect([read.status, list.status]).toEqual([200, 200]);
    const readSpans = await service.trace(
      read.traceId,
      (trace) => database === undefined || trace.length > 1,
    );
    const readSpan = serverSpanOf(readSpans);
    expect(readSpan.name).toBe('GET /plants/{id}');
    expect(readSpan.attributes).toMatchObject({ 'http.route': '/plants/{id}', 'url.path': `/plants/${id}` });
    const listSpans = await service.trace(
      list.traceId,
      (trace) => database === undefined || trace.length > 1,
    );
    const listSpan = serverSpanOf(listSpans);
    // Each is one statement (the list page's subqueries are summarised once).
    const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
      spans.filter((span) => span.parentSpanId === parent.spanId).map((span) => `${span.kind} ${span.name}`);
    expect(childrenOf(readSpans, readSpan)).toEqual(database === undefined ? [] : ['CLIENT SELECT plants']);
    expect(childrenOf(listSpans, listSpan)).toEqual(
      database === undefined ? [] : ['CLIENT SELECT plants SELECT plants'],
    );
    expect(listSpan.name).toBe('GET /plants');
    // The query is not the path.
    expect(listSpan.attributes).toMatchObject({ 'http.route': '/plants', 'url.path': '/plants' });
  });

  it("a webhook delivery is in the create's trace, and its request carries traceparent with the create's trace id", async (context) => {
    if (storage === undefined) return context.skip();
    const id = randomPlantId();
    const created = await service.request('/plants', { method: 'POST', body: createBody(id) });
    expect(created.status).toBe(200);
    const deliveryOf = () => webhooks.received.find((received) => received.body.includes(`"id":${id}`));
    await eventually(() => deliveryOf() !== undefined, 'the delivery of the plant');
    const delivered = deliveryOf() as Received;
    expect(delivered.traceparent).toMatch(new RegExp(`^00-${created.traceId}-[0-9a-f]{16}-01$`));
    const spans = await service.trace(created.traceId, (trace) =>
      trace.some((span) => span.kind === 'CLIENT' && span.attributes['http.request.method'] === 'POST'),
    );
    const attempt = spans.find(
      (span) => span.kind === 'CLIENT' && span.attributes['http.request.method'] === 'POST',
    ) as ReceivedSpan;
    // The receiver continues the trace from the attempt's own span.
    expect(delivered.traceparent?.split('-')[2]).toBe(attempt.spanId);
    expect(attempt.attributes['http.response.status_code']).toBe(204n);
  });

  it("a caller's baggage on a create reaches neither its webhook delivery nor the trace context kept with its event", async (context) => {
    if (storage === undefined) return context.skip();
    const id = randomPlantId();
    const created = await service.request('/plants', {
      method: 'POST',
      body: createBody(id),
      headers: { baggage: BAGGAGE },
    });
    expect(created.status).toBe(200);
    const deliveryOf = () => webhooks.received.find((received) => received.body.includes(`"id":${id}`));
    await eventually(() => deliveryOf() !== undefined, 'the delivery of the plant');
    const delivered = deliveryOf() as Received;
    expect(delivered.traceparent).toMatch(new RegExp(`^00-${created.traceId}-[0-9a-f]{16}-01$`));
    expect(delivered.baggage).toBeUndefined();
    if (storageName === 'PostgreSQL' && postgres !== undefined) {
      // The delivery job as the queue keeps it, with the trace context the create recorded.
      const kept = await keptTraceContexts(postgres.connectionString, id);
      expect(kept).toEqual([{ traceparent: expect.stringMatching(`^00-${created.traceId}-`) }]);
    }
  });
});

/** The trace contexts of the deliveries of plant `id`, as the PostgreSQL queue keeps them. */
async function keptTraceContexts(connectionString: string, id: bigint): Promise<unknown[]> {
  const options = new URL(connectionString).searchParams.get('options') ?? '';
  const schema = /search_path=([^\s]+)/.exec(options)?.[1] ?? 'public';
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ trace_context: unknown }>(
      // A first attempt rides in a batch (data.deliveries); a retry is a job of its own.
      `select delivery->'traceContext' as trace_context from "${jobQueueSchema(schema)}".job,
         jsonb_array_elements(case when jsonb_typeof(data->'deliveries') = 'array' then data->'deliveries' else jsonb_build_array(data) end) as delivery
       where delivery->>'body' like $1`,
      [`%"id":${id},%`],
    );
    return rows.map((row) => row.trace_context);
  } finally {
    await client.end();
  }
}

describe('a collector that is down or slow', TIMEOUT, () => {
  it("when it refuses connections, then requests are served, the spans are counted as dropped, the SDK's complaint is one line with its message alone, and SIGTERM still exits 0", async () => {
    const nobody = `http://127.0.0.2:${await freePort()}`;
    // The exporter retries a refused export until its timeout (10 s by default): 1 s, so the count comes soon.
    const service = await startTraced(
      { DATABASE_URL: 'memory:', SHUTDOWN_TIMEOUT_MS: '2000', OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
      nobody,
    );
    for (let i = 0; i < 5; i += 1) {
      const created = await service.request('/plants', { method: 'POST', body: createBody(randomPlantId()) });
      expect(created.status).toBe(200);
    }
    const countedAfterMs = await eventually(
      async () => (await droppedSpans(service, 'export_failed')) >= 5,
      'the refused spans counted',
    );
    // The SDK's complaint: its message alone, without the stack or the error's other fields.
    const complaints = logLines(service.run).filter((line) => line.msg.startsWith('traces: '));
    expect(complaints).toContainEqual(
      expect.objectContaining({ level: 40, msg: `traces: connect ECONNREFUSED ${new URL(nobody).host}` }),
    );
    for (const line of complaints) expect(JSON.stringify(line)).not.toMatch(/stack|\\n|node:net/);
    const stoppedAt = performance.now();
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
    reportDrill('traces-collector-refusing', {
      creates: 5,
      allAnswered200: true,
      exportFailedCountedAfterMs: countedAfterMs,
      sigtermToExitMs: Math.round(performance.now() - stoppedAt),
    });
  });

  it('when it never answers, then requests are served, a full queue drops spans (counted), and SIGTERM gives up on the flush at the shutdown deadline', async () => {
    const collector = await startOtlpReceiver({ host: '127.0.0.2' });
    collector.behaviour = 'hang';
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        SHUTDOWN_TIMEOUT_MS: '1000',
        // One export of 4 spans hangs; 8 more wait in the queue; the rest are dropped.
        OTEL_BSP_MAX_QUEUE_SIZE: '8',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4',
        OTEL_BSP_EXPORT_TIMEOUT: '600000',
        OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
      },
      collector,
    );
    try {
      for (let i = 0; i < 30; i += 1) {
        const created = await service.request('/plants', {
          method: 'POST',
          body: createBody(randomPlantId()),
        });
        expect(created.status).toBe(200);
      }
      const queueFull = await droppedSpans(service, 'queue_full');
      expect(queueFull).toBeGreaterThanOrEqual(30 - 4 - 8);
      const stoppedAt = performance.now();
      service.run.child.kill('SIGTERM');
      expect(await service.run.exited).toBe(0);
      expect(service.run.stdout()).toContain('traces: the collector did not take the last spans in time');
      reportDrill('traces-collector-hanging', {
        creates: 30,
        allAnswered200: true,
        droppedQueueFull: queueFull,
        shutdownTimeoutMs: 1000,
        sigtermToExitMs: Math.round(performance.now() - stoppedAt),
      });
    } finally {
      await collector.close();
    }
  });
});

describe('a collector that answers 200 and then a byte at a time', TIMEOUT, () => {
  it('when it dribbles every answer, then each export is given up at OTEL_EXPORTER_OTLP_TIMEOUT, and connections to it do not pile up', async () => {
    const collector = await startOtlpReceiver({ host: '127.0.0.2' });
    collector.behaviour = 'dribble';
    const timeoutMs = 1000;
    // One span an export; the processor waits for each longer than it may take.
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        SHUTDOWN_TIMEOUT_MS: '1000',
        OTEL_EXPORTER_OTLP_TIMEOUT: String(timeoutMs),
        OTEL_BSP_EXPORT_TIMEOUT: '30000',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
      },
      collector,
    );
    try {
      // Creates go on while exports are held: a failed export must not let the next begin beside another.
      let creating = true;
      const creates = (async () => {
        let made = 0;
        while (creating) {
          const created = await service.request('/plants', {
            method: 'POST',
            body: createBody(randomPlantId()),
          });
          expect(created.status).toBe(200);
          made += 1;
        }
        return made;
      })();
      const givenUp = (exports: ReceivedExport[]) =>
        exports.flatMap((one) => (one.givenUpAfterMs === undefined ? [] : [one.givenUpAfterMs]));
      // Promised: an export ends by the timeout. A busy machine may add its slack, still below the
      // processor's own 30 s bound (OTEL_BSP_EXPORT_TIMEOUT) that would end it otherwise.
      const promisedMs = timeoutMs + BUSY_MACHINE_SLACK_MS;
      const held = givenUp(
        await collector.waitForExports((exports) => givenUp(exports).length >= 3, 3 * promisedMs),
      );
      creating = false;
      const made = await creates;
      for (const ms of held) {
        // The collector sees an export begin a little after the exporter does: what it measures is short of the whole.
        expect(ms, 'an export held, not ended at once').toBeGreaterThan(timeoutMs / 2);
        expect(ms, 'given up within OTEL_EXPORTER_OTLP_TIMEOUT, give or take a busy machine').toBeLessThan(
          promisedMs,
        );
      }
      expect(collector.connections().most).toBeLessThanOrEqual(2);
      const stoppedAt = performance.now();
      service.run.child.kill('SIGTERM');
      expect(await service.run.exited).toBe(0);
      reportDrill('traces-collector-dribbling', {
        creates: made,
        exportTimeoutMs: timeoutMs,
        exportsGivenUpAfterMs: held,
        mostConnectionsAtOnce: collector.connections().most,
        sigtermToExitMs: Math.round(performance.now() - stoppedAt),
      });
    } finally {
      await collector.close();
    }
  });
});

describe('SIGTERM and the standard variables', TIMEOUT, () => {
  let collector: OtlpReceiver;
  beforeAll(async () => {
    collector = await startOtlpReceiver({ host: '127.0.0.2' });
  });
  afterAll(async () => {
    await collector.close();
  });

  it('when SIGTERM comes with spans queued, then they are exported before the process exits', async () => {
    // No export by timer or by a full batch: only the flush at the stop sends the span.
    const service = await startTraced(
      { DATABASE_URL: 'memory:', OTEL_BSP_SCHEDULE_DELAY: '600000', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512' },
      collector,
    );
    const created = await service.request('/plants', { method: 'POST', body: createBody(randomPlantId()) });
    expect(created.status).toBe(200);
    expect(collector.spans().filter((span) => span.traceId === created.traceId)).toEqual([]);
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
    expect(serverSpanOf(collector.spans().filter((span) => span.traceId === created.traceId)).name).toBe(
      'POST /plants',
    );
  });

  it('when the variables ask for http/json, headers, a service name and resource attributes, then the export has them', async () => {
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=secret-1',
        OTEL_SERVICE_NAME: 'plants-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,service.name=ignored',
      },
      collector,
    );
    const read = await service.request('/plants/1');
    expect(read.status).toBe(404);
    const server = serverSpanOf(await service.trace(read.traceId));
    expect(server.resource).toMatchObject({
      'service.name': 'plants-eu',
      'deployment.environment.name': 'test',
    });
    const exported = collector.exports.find((one) => one.spans.some((span) => span.traceId === read.traceId));
    expect(exported?.encoding).toBe('json');
    expect(exported?.headers['x-collector-key']).toBe('secret-1');
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
  });

  it('when the variables are written in capitals (ALWAYS_OFF), then the SDK does what the start line says: no span of a sampled caller is exported', async () => {
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        OTEL_TRACES_SAMPLER: 'ALWAYS_OFF',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
      },
      collector,
    );
    expect(startLine(service.run)).toMatchObject({ sampler: 'always_off', protocol: 'http/json' });
    const read = await service.request('/plants/4');
    expect(read.status).toBe(404);
    // The stop exports whatever is queued: after it, anything sampled would have arrived.
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
    expect(collector.spans().filter((span) => span.traceId === read.traceId)).toEqual([]);
  });

  it('when the endpoint holds a user, a password and a query, and headers are set, then exports use them, and the log shows none of them: only the header names', async () => {
    const secretEndpoint = new URL(`${collector.url}/v1/traces?token=Q7query`);
    secretEndpoint.username = 'apikey';
    secretEndpoint.password = 'S3cr3tPass';
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: secretEndpoint.href,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=h3aderS3cret',
        OTEL_EXPORTER_OTLP_COMPRESSION: 'GZIP',
      },
      collector,
    );
    const read = await service.request('/plants/5');
    expect(serverSpanOf(await service.trace(read.traceId)).name).toBe('GET /plants/{id}');
    const exported = collector.exports.find((one) => one.spans.some((span) => span.traceId === read.traceId));
    expect(exported?.headers).toMatchObject({
      authorization: `Basic ${Buffer.from('apikey:S3cr3tPass').toString('base64')}`,
      'x-collector-key': 'h3aderS3cret',
      'content-encoding': 'gzip',
    });
    expect(startLine(service.run)).toMatchObject({
      endpoint: `http://REDACTED:REDACTED@${secretEndpoint.host}/v1/traces?token=REDACTED`,
      headers: ['x-collector-key'],
      compression: 'gzip',
    });
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
    for (const secret of ['S3cr3tPass', 'Q7query', 'h3aderS3cret']) {
      expect(service.run.stdout()).not.toContain(secret);
      expect(service.run.stderr()).not.toContain(secret);
    }
  });

  it('when OTEL_BSP_MAX_EXPORT_BATCH_SIZE is 0, then the service refuses to start, naming it', async () => {
    const run = runMain({
      PORT: '0',
      API_TOKENS: TOKEN,
      DATABASE_URL: 'memory:',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0',
    });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/^plant-store cannot start: /);
    expect(run.stderr()).toContain('OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be a whole number from 1 to ');
  });

  it("when sampling at ratio 0 with a parent-based sampler, then a caller's sampled traceparent is still followed, and a request without one is not traced", async () => {
    const service = await startTraced(
      {
        DATABASE_URL: 'memory:',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      },
      collector,
    );
    const response = await fetch(`${service.url}/plants/2`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const requestId = response.headers.get('x-request-id');
    const followed = await service.request('/plants/3');
    expect(serverSpanOf(await service.trace(followed.traceId)).name).toBe('GET /plants/{id}');
    // Exported after the first request ended, in order: had it been sampled, it would be there by now.
    await collector.waitForSpans((spans) => spans.some((span) => span.traceId === followed.traceId));
    expect(
      collector.spans().filter((span) => span.attributes['plant_store.request_id'] === requestId),
    ).toEqual([]);
    // Its log line still names its (unsampled) trace, for logs to be joined on.
    expect(service.run.stdout()).toMatch(
      new RegExp(`"requestId":"${requestId}"[^\\n]*"trace_id":"[0-9a-f]{32}"`),
    );
    service.run.child.kill('SIGTERM');
    expect(await service.run.exited).toBe(0);
  });
});

describe('OTEL_TRACES_EXPORTER', TIMEOUT, () => {
  /** The service on memory storage with exactly these OTEL_* variables (no collector unless given). */
  const start = (env: NodeJS.ProcessEnv) =>
    runMain({ PORT: '0', API_TOKENS: TOKEN, DATABASE_URL: 'memory:', LOG_LEVEL: 'info', ...env });
  const create = (url: string, traceparent: string) =>
    fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', traceparent },
      body: `{"id":${randomPlantId()},"name":"Monstera"}`,
    });

  it("when it is console, with no endpoint set, then a request's SERVER span is a line of the log as it ends, with the request line's ids, and stderr stays empty", async () => {
    const run = start({ OTEL_TRACES_EXPORTER: 'console' });
    const url = await listeningUrl(run);
    expect(
      logLines(run).find((line) => line.msg.startsWith('traces: each span a line of this log')),
    ).toMatchObject({
      sampler: 'parentbased_always_on',
    });
    const caller = callerContext();
    expect((await create(url, caller.traceparent)).status).toBe(200);
    const spanLineOf = () =>
      logLines(run).find((line) => line.msg === 'span' && line.trace_id === caller.traceId);
    await eventually(() => spanLineOf() !== undefined, "the create's span line");
    const spanLine = spanLineOf();
    const requestLine = logLines(run).find(
      (line) => line.msg === 'request' && line.trace_id === caller.traceId,
    );
    expect(spanLine).toMatchObject({
      level: 30,
      span: 'POST /plants',
      kind: 'SERVER',
      span_id: requestLine?.span_id,
      parent_span_id: caller.spanId,
      attributes: { 'http.route': '/plants', 'http.response.status_code': 200 },
    });
    expect(spanLine?.durationMs as number).toBeGreaterThan(0);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
  });

  it('when it lists otlp and console, then the span goes to the collector and to the log', async () => {
    const collector = await startOtlpReceiver({ host: '127.0.0.2' });
    try {
      const run = start({
        OTEL_TRACES_EXPORTER: 'otlp, console',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      const url = await listeningUrl(run);
      const caller = callerContext();
      expect((await create(url, caller.traceparent)).status).toBe(200);
      await collector.waitForSpans((spans) => spans.some((span) => span.traceId === caller.traceId));
      expect(
        logLines(run).filter((line) => line.msg === 'span' && line.trace_id === caller.traceId),
      ).toHaveLength(1);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      await collector.close();
    }
  });

  it('when it is none, then nothing is traced though an endpoint is set: no start line, no trace id in the request line', async () => {
    const run = start({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.2:4318' });
    const url = await listeningUrl(run);
    expect((await create(url, callerContext().traceparent)).status).toBe(200);
    await eventually(() => logLines(run).some((line) => line.msg === 'request'), 'the request line');
    expect(logLines(run).filter((line) => line.msg.startsWith('traces:') || 'trace_id' in line)).toEqual([]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it("when it names otlp with no endpoint set, then spans go to the specification's default, localhost:4318", async () => {
    const run = start({ OTEL_TRACES_EXPORTER: 'otlp' });
    await listeningUrl(run);
    expect(startLine(run)).toMatchObject({ endpoint: 'http://localhost:4318/v1/traces' });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it.each([
    ['zipkin', 'OTEL_TRACES_EXPORTER must be otlp, console (spans in the log), both, or none, not "zipkin"'],
    ['none,otlp', 'OTEL_TRACES_EXPORTER lists none with other exporters: none means no exporter at all'],
  ])('when it is %s, then the start is refused in one line naming it', async (value, reason) => {
    const run = start({ OTEL_TRACES_EXPORTER: value });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(`plant-store cannot start: ${reason}\n`);
  });
});

/** The run's log lines so far, parsed. */
function logLines(run: Run): { level: number; msg: string; [field: string]: unknown }[] {
  return run
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** The line saying where traces go. */
function startLine(run: Run): Record<string, unknown> | undefined {
  return logLines(run).find((line) => line.msg === 'traces: exporting over OTLP/HTTP');
}

/** plant_store_trace_spans_dropped_total{reason} from /metrics. */
async function droppedSpans(service: Traced, reason: 'queue_full' | 'export_failed'): Promise<number> {
  const response = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith(`plant_store_trace_spans_dropped_total{reason="${reason}"}`));
  return Number(line?.split(' ')[1]);
}
