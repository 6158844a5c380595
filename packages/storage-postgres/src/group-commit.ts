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
  resolve(value: Out): void;
  reject(error: unknown): void;
}

/**
 * Coalesces concurrent calls into batches: every call made while the batches already running fill
 * the allowed slots joins the next batch, and `runBatch` answers each item of it in order. A call
 * that finds a free slot starts a batch at the next turn of the event loop, with the calls made
 * meanwhile: alone, it waits for nothing (no timer, no added latency without concurrency).
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

  const settle = async (batch: readonly Pending<In, Out>[]): Promise<void> => {
    try {
      const outcomes = await runBatch(batch.map((pending) => pending.item));
      if (outcomes.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} answered ${outcomes.length} outcomes`);
      }
      batch.forEach((pending, index) => {
        pending.resolve(outcomes[index] as Out);
      });
    } catch (error) {
      if (batch.length === 1 || !retryAlone(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(batch.map((pending) => settle([pending])));
    }
  };

  const startBatches = (): void => {
    scheduled = false;
    while (running < maxConcurrentBatches && queue.length > 0) {
      const batch = queue.length <= maxBatchSize ? queue : queue.slice(0, maxBatchSize);
      queue = queue.length <= maxBatchSize ? [] : queue.slice(maxBatchSize);
      running += 1;
      void settle(batch).finally(() => {
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
      queue.push({ item, resolve, reject });
      schedule();
    });
}
