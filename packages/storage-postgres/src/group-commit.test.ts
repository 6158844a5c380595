import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.ts';

/** A runBatch that records its batches and answers each item doubled, once released. */
function recordingBatches() {
  const batches: number[][] = [];
  let running = 0;
  let mostAtOnce = 0;
  const gates: (() => void)[] = [];
  const runBatch = async (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    running += 1;
    mostAtOnce = Math.max(mostAtOnce, running);
    await new Promise<void>((release) => gates.push(release));
    running -= 1;
    return items.map((item) => item * 2);
  };
  return {
    batches,
    runBatch,
    mostAtOnce: () => mostAtOnce,
    /** Lets every batch started so far finish. */
    releaseAll: () => {
      for (const release of gates.splice(0)) release();
    },
  };
}

describe('groupCommit', () => {
  it('when a call is alone, then its batch starts at the next turn of the event loop, with no timer', async () => {
    const recorder = recordingBatches();
    const commit = groupCommit(recorder.runBatch);
    const answer = commit(1);
    await nextTurn();
    expect(recorder.batches).toEqual([[1]]);
    recorder.releaseAll();
    await expect(answer).resolves.toBe(2);
  });

  it('when calls are made in one turn, then they form one batch, each answered with its own outcome in order', async () => {
    const recorder = recordingBatches();
    const commit = groupCommit(recorder.runBatch);
    const answers = [commit(1), commit(2), commit(3)];
    await nextTurn();
    recorder.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual([2, 4, 6]);
    expect(recorder.batches).toEqual([[1, 2, 3]]);
  });

  it('when calls are made while a batch runs, then they wait and all join the next batch', async () => {
    const recorder = recordingBatches();
    const commit = groupCommit(recorder.runBatch);
    const first = commit(1);
    await nextTurn();
    const later = [commit(2), commit(3)];
    await nextTurn();
    await nextTurn();
    expect(recorder.batches).toEqual([[1]]);
    recorder.releaseAll();
    await expect(first).resolves.toBe(2);
    await nextTurn();
    expect(recorder.batches).toEqual([[1], [2, 3]]);
    recorder.releaseAll();
    await expect(Promise.all(later)).resolves.toEqual([4, 6]);
  });

  it('when more calls wait than a batch may carry, then they are split into batches of at most maxBatchSize', async () => {
    const recorder = recordingBatches();
    const commit = groupCommit(recorder.runBatch, { maxBatchSize: 2, maxConcurrentBatches: 10 });
    const answers = [1, 2, 3, 4, 5].map((item) => commit(item));
    await nextTurn();
    expect(recorder.batches).toEqual([[1, 2], [3, 4], [5]]);
    recorder.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual([2, 4, 6, 8, 10]);
  });

  it('when maxConcurrentBatches batches run, then no other starts until one ends', async () => {
    const recorder = recordingBatches();
    const commit = groupCommit(recorder.runBatch, { maxBatchSize: 1, maxConcurrentBatches: 2 });
    const answers = [1, 2, 3, 4].map((item) => commit(item));
    await nextTurn();
    expect(recorder.batches).toEqual([[1], [2]]);
    for (let round = 0; round < 3; round += 1) {
      recorder.releaseAll();
      await nextTurn();
      await nextTurn();
    }
    await expect(Promise.all(answers)).resolves.toEqual([2, 4, 6, 8]);
    expect(recorder.mostAtOnce()).toBe(2);
  });

  it('when a batch fails for a reason worth retrying, then each item runs alone and only the bad one fails', async () => {
    const seen: number[][] = [];
    const commit = groupCommit(async (items: readonly number[]) => {
      seen.push([...items]);
      if (items.includes(13)) throw new Error('13 is refused');
      return items.map((item) => item * 2);
    });
    const answers = [commit(1), commit(13), commit(3)].map((answer) =>
      answer.then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    );
    await expect(Promise.all(answers)).resolves.toEqual([
      { value: 2 },
      { error: '13 is refused' },
      { value: 6 },
    ]);
    expect(seen).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it('when a batch fails for a reason not worth retrying (an outage), then every item of it fails with that error', async () => {
    const outage = new Error('the database is unavailable');
    let runs = 0;
    const commit = groupCommit(
      async () => {
        runs += 1;
        throw outage;
      },
      { retryAlone: (error) => error !== outage },
    );
    const answers = [commit(1), commit(2)].map((answer) => answer.catch((error: unknown) => error));
    await expect(Promise.all(answers)).resolves.toEqual([outage, outage]);
    expect(runs).toBe(1);
  });

  it('when runBatch answers a wrong number of outcomes, then the items fail rather than get another item’s outcome', async () => {
    const commit = groupCommit(async () => [1], { retryAlone: () => false });
    const answers = [commit(1), commit(2)].map((answer) => answer.catch((error: Error) => error.message));
    await expect(Promise.all(answers)).resolves.toEqual([
      'a batch of 2 answered 1 outcomes',
      'a batch of 2 answered 1 outcomes',
    ]);
  });
});
