import {
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { ATTR_DB_OPERATION_BATCH_SIZE } from '@opentelemetry/semantic-conventions';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-version.ts';

export interface GroupCommitOptions {
  /** The most items one batch carries. Default 500. */
  readonly maxBatchSize?: number;
  /** How many batches may run at once; calls made while all are running wait for the next. Default 1. */
  readonly maxConcurrentBatches?: number;
  /**
   * Whether a failed batch of several items is run again item by item, so that one bad item fails
   * alone. Not for outages: every item would fail again, later. Default: always.
   */
  readonly retryAlone?: (error: unknown) => boolean;
}

interface Pending<In, Out> {
  readonly item: In;
  /** The context of the call, captured when it was made: the batch links to its span. */
  readonly context: Context;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

/**
 * The span of a batch, when any of its calls is traced: a child of the call that opened the batch
 * (the first), linked to each call it serves, since a span has one parent and a batch serves many.
 * None under an opener's span that records nothing: the SDK's samplers would not record its child
 * either, and the batch runs in the opener's context instead.
 */
function startBatchSpan(batch: readonly Pending<unknown, unknown>[]): Span | undefined {
  if (trace.getSpan((batch[0] as Pending<unknown, unknown>).context)?.isRecording() === false)
    return undefined;
  const links: Link[] = [];
  for (const pending of batch) {
    const spanContext = trace.getSpan(pending.context)?.spanContext();
    if (spanContext !== undefined) links.push({ context: spanContext });
  }
  if (links.length === 0) return undefined;
  return trace
    .getTracer(PACKAGE_NAME, PACKAGE_VERSION)
    .startSpan(
      'group commit',
      { kind: SpanKind.INTERNAL, links, attributes: { [ATTR_DB_OPERATION_BATCH_SIZE]: batch.length } },
      (batch[0] as Pending<unknown, unknown>).context,
    );
}

/**
 * Coalesces concurrent calls into batches: every call made while the batches already running fill
 * the allowed slots joins the next batch, and `runBatch` answers each item of it in order. A call
 * that finds a free slot starts a batch at the next turn of the event loop, with the calls made
 * meanwhile: alone, it waits for nothing (no timer, no added latency without concurrency).
 * Traced calls make each batch a span (see startBatchSpan), the parent of what runBatch traces.
 */
export function groupCommit<In, Out>(
  runBatch: (items: readonly In[]) => Promise<readonly Out[]>,
  options: GroupCommitOptions = {},
): (item: In) => Promise<Out> {
  const maxBatchSize = options.maxBatchSize ?? 500;
  const maxConcurrentBatches = options.maxConcurrentBatches ?? 1;
  const retryAlone = options.retryAlone ?? (() => true);
  let queue: Pending<In, Out>[] = [];
  let running = 0;
  let scheduled = false;

  const settle = async (batch: readonly Pending<In, Out>[], span?: Span): Promise<void> => {
    try {
      const items = batch.map((pending) => pending.item);
      // A batch runs under its span; an item run again alone (no span), under its own call's context.
      const opener = (batch[0] as Pending<In, Out>).context;
      const outcomes = await context.with(span === undefined ? opener : trace.setSpan(opener, span), () =>
        runBatch(items),
      );
      if (outcomes.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} answered ${outcomes.length} outcomes`);
      }
      batch.forEach((pending, index) => {
        pending.resolve(outcomes[index] as Out);
      });
    } catch (error) {
      span?.setStatus({ code: SpanStatusCode.ERROR });
      if (batch.length === 1 || !retryAlone(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(batch.map((pending) => settle([pending])));
    } finally {
      span?.end();
    }
  };

  const startBatches = (): void => {
    scheduled = false;
    while (running < maxConcurrentBatches && queue.length > 0) {
      const batch = queue.length <= maxBatchSize ? queue : queue.slice(0, maxBatchSize);
      queue = queue.length <= maxBatchSize ? [] : queue.slice(maxBatchSize);
      running += 1;
      void settle(batch, startBatchSpan(batch)).finally(() => {
        running -= 1;
        schedule();
      });
    }
  };

  const schedule = (): void => {
    if (scheduled || queue.length === 0 || running >= maxConcurrentBatches) return;
    scheduled = true;
    // setImmediate, not a microtask: the requests whose bytes arrived in this same turn of the
    // event loop are parsed before it runs, and join this batch.
    setImmediate(startBatches);
  };

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ item, context: context.active(), resolve, reject });
      schedule();
    });
}
