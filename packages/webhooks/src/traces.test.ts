import { readFileSync } from 'node:fs';
import { type SpanContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { plantCreated, type RecordedEvent } from '@plant-store/domain';
import {
  eventually,
  type InMemoryTracing,
  newSecret,
  randomPlantId,
  startInMemoryTracing,
  startTestReceiver,
  type TestReceiver,
} from '@plant-store/test-support';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeEachDispatcher, silentObserver as silent } from '../test/dispatcher-harness.ts';
import type { WebhookConfig } from './deliveries.ts';
import { attemptJob } from './deliveries.ts';
import type { DeliveryJob } from './delivery-job.ts';
import { BATCH_QUEUE, DELIVERY_QUEUE } from './pg-boss-dispatcher.ts';
import { inRelaySpan } from './relay-loop.ts';
import { parseWebhookSecrets } from './secrets.ts';
import type { TraceCarrier } from './tracing.ts';

type FinishedSpan = ReturnType<InMemoryTracing['spans']>[number];

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
const secret = newSecret();
const keys = parseWebhookSecrets(secret);

let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = startInMemoryTracing();
});
afterAll(async () => {
  await tracing.stop();
});
beforeEach(() => tracing.reset());

const named = (name: string): FinishedSpan[] => tracing.spans().filter((span) => span.name === name);
/** The attempt spans, first attempt first. */
const attempts = (): FinishedSpan[] =>
  named('POST').sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
const idsOf = ({ traceId, spanId }: SpanContext) => ({ traceId, spanId });

/** The trace id and parent id a W3C traceparent header names. */
function parsedTraceparent(header: string | undefined) {
  const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header ?? '') ?? [];
  return { traceId, spanId };
}

/**
 * pg-boss's own spans of a queue: `insert` (PRODUCER), `process` (CONSUMER, a batch). First attempts are
 * queued in BATCH_QUEUE, later ones in DELIVERY_QUEUE.
 */
const pgBoss = (operation: 'insert' | 'process', queues = [BATCH_QUEUE]): FinishedSpan[] =>
  tracing
    .spans()
    .filter(
      (span) =>
        span.instrumentationScope.name === 'pg-boss' &&
        queues.some((queue) => span.name === `${operation} ${queue}`),
    );

await describeEachDispatcher('traces of webhook deliveries', (tests) => {
  async function setUp(schedule: number[]) {
    let relays = 0;
    const { hooks, dispatcher, create, storage } = await tests.start({
      schedule,
      timeoutMs: 5_000,
      outbox: (outbox) => ({
        ...outbox,
        relay: (limit, forward) => outbox.relay(limit, forward).finally(() => void relays++),
      }),
    });
    /**
     * Creates a plant as a traced request would: the span of the create is current while it is stored,
     * and the storage keeps its trace context with the event.
     */
    const createTraced = (plant: { id: bigint; name: string }) =>
      trace.getTracer('test').startActiveSpan('POST /plants', { kind: SpanKind.SERVER }, async (span) => {
        try {
          await create(plant);
          return span.spanContext();
        } finally {
          span.end();
        }
      });
    return {
      hook: hooks[0] as TestReceiver,
      dispatcher,
      storage,
      createTraced,
      createUntraced: create,
      relays: () => relays,
    };
  }

  /** The one relay span: a root, linked to each create. */
  function expectRelayed(creates: readonly SpanContext[], eventIds: readonly string[]): FinishedSpan {
    const [relay, ...more] = named('webhook relay');
    expect(more).toStrictEqual([]);
    expect(relay?.kind).toBe(SpanKind.INTERNAL);
    expect(relay?.parentSpanContext).toBeUndefined();
    expect(relay?.attributes).toStrictEqual({ 'plant_store.webhook.event_count': eventIds.length });
    expect(
      relay?.links.map((link) => ({ ...idsOf(link.context), attributes: link.attributes })),
    ).toStrictEqual(
      creates.map((create, index) => ({
        ...idsOf(create),
        attributes: { 'plant_store.webhook.event_id': eventIds[index] },
      })),
    );
    return relay as FinishedSpan;
  }

  /** pg-boss's span of the batch an attempt ran in, which the attempt links to. */
  async function batchOf(attempt: FinishedSpan): Promise<FinishedSpan> {
    const [link, ...more] = attempt.links;
    expect(more).toStrictEqual([]);
    const batches = () => pgBoss('process', [BATCH_QUEUE, DELIVERY_QUEUE]);
    await eventually(
      () => batches().some((span) => span.spanContext().spanId === link?.context.spanId),
      'the batch span ended',
    );
    const batch = batches().find((span) => span.spanContext().spanId === link?.context.spanId);
    expect(batch?.kind).toBe(SpanKind.CONSUMER);
    return batch as FinishedSpan;
  }

  it("when a plant created in a traced request is delivered, then the receiver continues the create's trace, through an attempt span under the create", async () => {
    const { hook, createTraced } = await setUp([50]);
    const create = await createTraced({ id: randomPlantId(), name: 'traced' });
    await eventually(() => attempts().length === 1, 'the attempt span ended');
    const [attempt] = attempts() as [FinishedSpan];
    const received = hook.received[0];

    expect(parsedTraceparent(received?.traceparent)).toStrictEqual(idsOf(attempt.spanContext()));
    expect(attempt.spanContext().traceId).toBe(create.traceId);
    expect(attempt.parentSpanContext && idsOf(attempt.parentSpanContext)).toStrictEqual(idsOf(create));
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    expect(attempt.status).toStrictEqual({ code: SpanStatusCode.UNSET });
    expect(attempt.instrumentationScope).toMatchObject({ name: manifest.name, version: manifest.version });
    const url = new URL(hook.url);
    expect(attempt.attributes).toStrictEqual({
      'http.request.method': 'POST',
      'url.full': hook.url,
      'server.address': url.hostname,
      'server.port': Number(url.port),
      'http.response.status_code': 204,
      'plant_store.webhook.event_id': received?.id,
      'plant_store.webhook.attempt': 1,
    });

    await eventually(() => named('webhook relay').length === 1, 'the relay span ended');
    const relay = expectRelayed([create], [received?.id as string]);
    if (tests.leg.queued) {
      // relay, then pg-boss's send under it, then its batch continuing the send's trace (one job).
      const [send] = pgBoss('insert') as [FinishedSpan];
      expect(send.kind).toBe(SpanKind.PRODUCER);
      expect(send.parentSpanContext?.spanId).toBe(relay.spanContext().spanId);
      const batch = await batchOf(attempt);
      expect(batch.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
      expect(
        batch.links.map((link) => ({ ...idsOf(link.context), attributes: link.attributes })),
      ).toStrictEqual([{ ...idsOf(create), attributes: { 'plant_store.webhook.event_id': received?.id } }]);
    } else {
      expect(attempt.links).toStrictEqual([]);
    }
  });

  it("when the first attempt fails and the retry delivers, then both are spans of the create's trace, the first with its error", async () => {
    const { hook, createTraced } = await setUp([50]);
    let calls = 0;
    hook.answer = (_request, response) => void response.writeHead(++calls === 1 ? 500 : 204).end();
    const create = await createTraced({ id: randomPlantId(), name: 'second time' });
    await eventually(() => attempts().length === 2, 'both attempt spans ended');
    const [failed, delivered] = attempts() as [FinishedSpan, FinishedSpan];

    for (const attempt of [failed, delivered]) {
      expect(attempt.spanContext().traceId).toBe(create.traceId);
      expect(attempt.parentSpanContext?.spanId).toBe(create.spanId);
    }
    expect(hook.received.map((entry) => parsedTraceparent(entry.traceparent))).toStrictEqual([
      idsOf(failed.spanContext()),
      idsOf(delivered.spanContext()),
    ]);
    expect(failed.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: 'answered 500' });
    expect(failed.attributes).toMatchObject({
      'error.type': '500',
      'http.response.status_code': 500,
      'plant_store.webhook.attempt': 1,
    });
    expect(failed.attributes).not.toHaveProperty('http.request.resend_count');
    expect(delivered.status).toStrictEqual({ code: SpanStatusCode.UNSET });
    expect(delivered.attributes).toMatchObject({
      'http.response.status_code': 204,
      'plant_store.webhook.attempt': 2,
      'http.request.resend_count': 1,
    });
    expect(delivered.attributes).not.toHaveProperty('error.type');
    if (tests.leg.queued) {
      // Each attempt is a job of its own batch, and links to that batch.
      const batches = [await batchOf(failed), await batchOf(delivered)];
      expect(batches[0]?.spanContext().spanId).not.toBe(batches[1]?.spanContext().spanId);
      for (const batch of batches)
        expect(batch.links.map((link) => idsOf(link.context))).toContainEqual(idsOf(create));
    }
  });

  const { redeliver } = tests;
  if (redeliver)
    it("when a dead delivery is redelivered, then its attempt still continues the create's trace", async () => {
      const { hook, createTraced, dispatcher, storage } = await setUp([]);
      let down = true;
      hook.answer = (_request, response) => void response.writeHead(down ? 503 : 204).end();
      const create = await createTraced({ id: randomPlantId(), name: 'brought back' });
      await eventually(async () => (await dispatcher.backlog()).dead === 1, 'dead after its only attempt');
      down = false;
      await expect(redeliver(storage)).resolves.toBe(1);
      await eventually(() => attempts().length === 2, 'the redelivered attempt span ended');
      const [failed, redelivered] = attempts() as [FinishedSpan, FinishedSpan];
      expect(failed.attributes['error.type']).toBe('503');
      expect(redelivered.attributes).toMatchObject({
        'http.response.status_code': 204,
        'plant_store.webhook.attempt': 1,
      });
      expect(redelivered.parentSpanContext && idsOf(redelivered.parentSpanContext)).toStrictEqual(
        idsOf(create),
      );
      expect(parsedTraceparent(hook.received[1]?.traceparent)).toStrictEqual(
        idsOf(redelivered.spanContext()),
      );
    });

  it('when an event was recorded with tracing off, then its attempt is under the span at hand (the batch) and still sends its traceparent', async () => {
    const { hook, createUntraced } = await setUp([50]);
    await createUntraced({ id: randomPlantId(), name: 'untraced' });
    await eventually(() => attempts().length === 1, 'the attempt span ended');
    await eventually(() => named('webhook relay').length === 1, 'the relay span ended');
    const [attempt] = attempts() as [FinishedSpan];
    expect(parsedTraceparent(hook.received[0]?.traceparent)).toStrictEqual(idsOf(attempt.spanContext()));
    expect(attempt.links).toStrictEqual([]);
    expectRelayed([], [hook.received[0]?.id as string]);
    if (tests.leg.queued) {
      await eventually(() => pgBoss('process').length === 1, 'the batch span ended');
      const [batch] = pgBoss('process') as [FinishedSpan];
      expect(batch.links).toStrictEqual([]);
      expect(attempt.parentSpanContext && idsOf(attempt.parentSpanContext)).toStrictEqual(
        idsOf(batch.spanContext()),
      );
    } else {
      // In memory no span is at hand: whatever callback freed the slot is not the attempt's parent.
      expect(attempt.parentSpanContext).toBeUndefined();
    }
  });

  it('when the relay finds nothing to hand on, then it makes no span', async () => {
    const { relays } = await setUp([50]);
    // The first relay runs at start, the next a second later: two that found nothing.
    await eventually(() => relays() >= 2, 'two relays ran');
    expect(tracing.spans()).toStrictEqual([]);
  });
});

describe('an attempt span', () => {
  let receiver: TestReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  const config = (timeoutMs = 5_000): WebhookConfig => ({ urls: [], keys, schedule: [], timeoutMs });
  const job = (url: string, traceContext?: TraceCarrier): DeliveryJob => ({
    eventId: 'evt_traced',
    url,
    body: '{"id":1,"name":"a"}',
    recordedAt: new Date().toISOString(),
    attempt: 0,
    ...(traceContext && { traceContext }),
  });

  it('when the recorded context has a tracestate, then the request carries it with a traceparent of the same trace, still verified', async () => {
    receiver = await startTestReceiver([secret]);
    const headers: Record<string, string | string[] | undefined>[] = [];
    receiver.answer = (request, response) => {
      headers.push(request.headers);
      response.writeHead(204).end();
    };
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await attemptJob(
      config(),
      job(receiver.url, { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'store=plants' }),
      silent,
    );
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.parentSpanContext).toMatchObject({ traceId, spanId: parentId, isRemote: true });
    expect(parsedTraceparent(receiver.received[0]?.traceparent)).toStrictEqual(idsOf(attempt.spanContext()));
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(headers[0]?.tracestate).toBe('store=plants');
    expect(receiver.verified()).toHaveLength(1);
  });

  it('when the recorded context is unreadable, then the attempt is a root of its own and sends its own traceparent', async () => {
    receiver = await startTestReceiver([secret]);
    await attemptJob(config(), job(receiver.url, { traceparent: '00-not-a-trace-01' }), silent);
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.parentSpanContext).toBeUndefined();
    expect(parsedTraceparent(receiver.received[0]?.traceparent)).toStrictEqual(idsOf(attempt.spanContext()));
  });

  it('when the URL carries a user, a password and a query, then url.full shows none of their values', async () => {
    receiver = await startTestReceiver([secret]);
    const url = new URL(receiver.url);
    url.username = 'hook';
    url.password = 's3cret';
    url.search = '?token=abc&sig=def';
    await attemptJob(config(), job(url.href), silent);
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.attributes['url.full']).toBe(
      `http://REDACTED:REDACTED@${url.host}/hooks?token=REDACTED&sig=REDACTED`,
    );
    expect(receiver.received[0]?.path).toBe('/hooks?token=abc&sig=def');
  });

  it('when the receiver does not answer in time, then error.type is timeout', async () => {
    receiver = await startTestReceiver([secret]);
    receiver.answer = () => {};
    await attemptJob(config(200), job(receiver.url), silent);
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: 'no answer in time' });
    expect(attempt.attributes['error.type']).toBe('timeout');
    expect(attempt.attributes).not.toHaveProperty('http.response.status_code');
  });

  it('when the connection is refused, then error.type is its errno code', async () => {
    receiver = await startTestReceiver([secret]);
    const { url } = receiver;
    await receiver.goDown();
    await attemptJob(config(), job(url), silent);
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.attributes['error.type']).toBe('ECONNREFUSED');
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('when the attempt is abandoned at stop, then error.type says so', async () => {
    receiver = await startTestReceiver([secret]);
    receiver.answer = () => {};
    const stopping = new AbortController();
    const step = attemptJob(config(), job(receiver.url), silent, stopping.signal);
    await eventually(() => receiver?.received.length === 1, 'the request reached the receiver');
    stopping.abort();
    await expect(step).resolves.toMatchObject({ kind: 'abandoned' });
    const [attempt] = attempts() as [FinishedSpan];
    expect(attempt.attributes['error.type']).toBe('abandoned');
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('a relay span', () => {
  const recorded = (id: string, traceContext?: TraceCarrier): RecordedEvent => ({
    id,
    recordedAt: new Date(),
    event: plantCreated({ id: 1n, name: 'a' }),
    ...(traceContext && { traceContext }),
  });

  it('when handing the events on fails, then the span is marked failed with the error class, and the failure passes on', async () => {
    const refused = Object.assign(new Error('could not serialize access'), { code: '40001' });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await expect(
      inRelaySpan([recorded('evt_a', { traceparent }), recorded('evt_b')], () => Promise.reject(refused)),
    ).rejects.toBe(refused);
    const [relay, ...more] = named('webhook relay');
    expect(more).toStrictEqual([]);
    expect(relay?.status).toStrictEqual({
      code: SpanStatusCode.ERROR,
      message: 'could not serialize access',
    });
    expect(relay?.attributes).toStrictEqual({ 'plant_store.webhook.event_count': 2, 'error.type': '40001' });
    // The event recorded with tracing off has nothing to link to.
    expect(relay?.links.map((link) => link.attributes)).toStrictEqual([
      { 'plant_store.webhook.event_id': 'evt_a' },
    ]);
  });

  it('when there are no events, then it makes no span', async () => {
    let handedOn = 0;
    await inRelaySpan([], async () => void handedOn++);
    expect(handedOn).toBe(1);
    expect(tracing.spans()).toStrictEqual([]);
  });
});
