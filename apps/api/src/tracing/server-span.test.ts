import type { IncomingMessage } from 'node:http';
import { context, trace } from '@opentelemetry/api';
import { startInMemoryTracing } from '@plant-store/test-support';
import { describe, expect, it } from 'vitest';
import { startServerSpan } from './server-span.ts';

const request = {
  method: 'POST',
  url: '/plants',
  headers: {},
  httpVersion: '1.1',
  socket: { remoteAddress: '127.0.0.1' },
} as unknown as IncomingMessage;

describe('startServerSpan', () => {
  // A getter in the returned literal costs an AccessorPair in the old space each request, holding the
  // request's closure, span and context past every scavenge: peak RSS grew with it under load.
  it('returns plain data and methods, no accessor', () => {
    const traced = startServerSpan(request, 'r1');
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(traced))) {
      expect({ name, accessor: 'get' in descriptor || 'set' in descriptor }).toEqual({
        name,
        accessor: false,
      });
    }
    traced.end(201, '/plants', undefined);
  });

  it('gives no trace ids for the log line while tracing is off', () => {
    const traced = startServerSpan(request, 'r2');
    expect(traced.logFields()).toEqual({});
    traced.end(201, '/plants', undefined);
  });

  it('runs the app as it is while tracing is off', async () => {
    const traced = startServerSpan(request, 'r3');
    await traced.run(async () => {
      expect(trace.getActiveSpan()).toBeUndefined();
    });
    traced.end(201, '/plants', undefined);
  });

  // The tracer is kept between requests: one registered anew (as the SDK's after a test's) is followed.
  it('records under each tracing registered in turn, the span active while the app runs', async () => {
    for (const requestId of ['r4', 'r5']) {
      const tracing = startInMemoryTracing();
      try {
        const traced = startServerSpan(request, requestId);
        let active: string | undefined;
        await traced.run(async () => {
          active = trace.getSpan(context.active())?.spanContext().spanId;
        });
        traced.end(201, '/plants', undefined);
        const spans = tracing.spans();
        expect(spans.map((span) => [span.name, span.attributes['plant_store.request_id']])).toEqual([
          ['POST /plants', requestId],
        ]);
        expect(active).toBe(spans[0]?.spanContext().spanId);
        expect(traced.logFields()).toEqual({ trace_id: spans[0]?.spanContext().traceId, span_id: active });
      } finally {
        await tracing.stop();
      }
    }
  });
});
