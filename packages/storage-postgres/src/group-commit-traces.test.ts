import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { startInMemoryTracing, UNSAMPLED_SPAN_ID, unsampledContext } from '@plant-store/test-support';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.ts';

const tracing = startInMemoryTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.reset());

/** Makes each call inside a span of its own, named `call <item>`, ended once the call is answered. */
function tracedCall<T>(commit: (item: number) => Promise<T>, item: number): Promise<T> {
  return tracing.withinSpan(`call ${item}`, () => commit(item));
}

const spanNamed = (name: string) => {
  const found = tracing.spans().filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0] as (typeof found)[number];
};

describe('groupCommit, traced', () => {
  it('when calls made under three spans form one batch, then one span serves them: a child of the first, linked to each, and the batch runs under it', async () => {
    const seen: (string | undefined)[] = [];
    const commit = groupCommit(async (items: readonly number[]) => {
      seen.push(trace.getActiveSpan()?.spanContext().spanId);
      return items;
    });
    await Promise.all([1, 2, 3].map((item) => tracedCall(commit, item)));

    const batch = spanNamed('group commit');
    const calls = [1, 2, 3].map((item) => spanNamed(`call ${item}`));
    expect(batch.kind).toBe(SpanKind.INTERNAL);
    expect(batch.parentSpanContext?.spanId).toBe(calls[0]?.spanContext().spanId);
    expect(batch.spanContext().traceId).toBe(calls[0]?.spanContext().traceId);
    expect(batch.links.map((link) => link.context.spanId)).toStrictEqual(
      calls.map((call) => call.spanContext().spanId),
    );
    expect(batch.attributes['db.operation.batch.size']).toBe(3);
    expect(seen).toStrictEqual([batch.spanContext().spanId]);
    expect(tracing.spans()).toHaveLength(4);
  });

  it('when a batch fails and its items run alone, then the batch span is an error and each retry runs under its own call', async () => {
    const seen: (string | undefined)[] = [];
    const commit = groupCommit(async (items: readonly number[]) => {
      seen.push(trace.getActiveSpan()?.spanContext().spanId);
      if (items.includes(13)) throw new Error('unlucky');
      return items;
    });
    const answers = await Promise.allSettled([1, 13].map((item) => tracedCall(commit, item)));
    expect(answers.map((answer) => answer.status)).toStrictEqual(['fulfilled', 'rejected']);

    const batch = spanNamed('group commit');
    expect(batch.status.code).toBe(SpanStatusCode.ERROR);
    expect(seen).toStrictEqual([
      batch.spanContext().spanId,
      spanNamed('call 1').spanContext().spanId,
      spanNamed('call 13').spanContext().spanId,
    ]);
  });

  it('when no call is traced, then a batch makes no span', async () => {
    const commit = groupCommit(async (items: readonly number[]) => items);
    await expect(Promise.all([commit(1), commit(2)])).resolves.toStrictEqual([1, 2]);
    expect(tracing.spans()).toStrictEqual([]);
  });

  it('when the call that opens a batch is under a span that records nothing (unsampled), then no batch span is made: the batch runs under that span', async () => {
    const seen: (string | undefined)[] = [];
    const commit = groupCommit(async (items: readonly number[]) => {
      seen.push(trace.getActiveSpan()?.spanContext().spanId);
      return items;
    });
    const unsampledCall = context.with(unsampledContext(), () => commit(1));
    await expect(Promise.all([unsampledCall, tracedCall(commit, 2)])).resolves.toStrictEqual([1, 2]);
    expect(seen).toStrictEqual([UNSAMPLED_SPAN_ID]);
    expect(tracing.spans().map((span) => span.name)).toStrictEqual(['call 2']);
  });
});
