import { plantCreated } from '@plant-store/domain';
import { eventually, randomPlantId, type TestReceiver } from '@plant-store/test-support';
import { expect, it } from 'vitest';
import { describeEachDispatcher } from '../test/dispatcher-harness.ts';
import type { WebhookDispatcher, WebhookObserver } from './index.ts';
import { BATCH_QUEUE, DELIVERY_QUEUE } from './pg-boss-dispatcher.ts';

/** Counts what the dispatcher reported, as /metrics does. */
function countingObserver() {
  const counts = { delivered: 0, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 };
  const observer: WebhookObserver = {
    delivered: () => void counts.delivered++,
    attemptFailed: () => void counts.attemptsFailed++,
    gone: () => void counts.gone++,
    dead: () => void counts.dead++,
    abandoned: () => void counts.abandoned++,
  };
  return { counts, observer };
}

await describeEachDispatcher('webhook dispatcher', (tests) => {
  /** A dispatcher on the test's storage, delivering to `urls` receivers, its reports counted. */
  async function setUp(urls: number, schedule: number[], timeoutMs = 2_000) {
    const { counts, observer } = countingObserver();
    const started = await tests.start({ urls, schedule, timeoutMs, observer });
    return { ...started, counts };
  }

  /** Once nothing waits and no attempt is under way, no delivery can come after. */
  const settled = (dispatcher: WebhookDispatcher) =>
    eventually(
      async () => (await dispatcher.backlog()).oldestUndeliveredAt === undefined,
      'nothing left undelivered',
    );

  it('when plants are created, then every URL gets each one once, exactly, verified by standardwebhooks', async () => {
    const { hooks, create, counts, dispatcher } = await setUp(2, [50]);
    const plants = [
      { id: 2n ** 62n + randomPlantId() / 4n, name: 'Monstera', tag: 'aroid' },
      { id: -(2n ** 63n), name: '\ufeffmin, a U+FEFF first' },
      { id: randomPlantId(), name: '  Cafe\u0301 🌵 "quoted" ', tag: '' },
    ];
    for (const plant of plants) await create(plant);
    await eventually(() => hooks.every((hook) => hook.received.length >= 3), 'three deliveries per URL');
    await settled(dispatcher);
    for (const hook of hooks) {
      expect(hook.received).toHaveLength(3);
      expect(hook.verified()).toHaveLength(3);
      const bodies = hook.received.map((entry) => entry.body).sort();
      const expected = plants
        .map(({ id, name, tag }) =>
          tag === undefined
            ? `{"id":${id},"name":${JSON.stringify(name)}}`
            : `{"id":${id},"name":${JSON.stringify(name)},"tag":${JSON.stringify(tag)}}`,
        )
        .sort();
      expect(bodies).toStrictEqual(expected);
      expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(3);
    }
    // One event, one webhook-id, whichever URL it goes to.
    expect(new Set(hooks[0]?.received.map((entry) => entry.id))).toStrictEqual(
      new Set(hooks[1]?.received.map((entry) => entry.id)),
    );
    expect(counts).toStrictEqual({ delivered: 6, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 });
  });

  it('when the receiver fails twice, then the third attempt delivers, with the same webhook-id each time', async () => {
    const { hooks, create, counts, dispatcher } = await setUp(1, [50, 50, 50]);
    const hook = hooks[0] as TestReceiver;
    let calls = 0;
    hook.answer = (_request, response) => {
      calls += 1;
      response.writeHead(calls <= 2 ? 500 : 200).end();
    };
    await create({ id: randomPlantId(), name: 'patience' });
    await eventually(() => counts.delivered === 1, 'delivered on the third attempt');
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(1);
    expect(hook.verified()).toHaveLength(3);
    expect(counts).toStrictEqual({ delivered: 1, attemptsFailed: 2, gone: 0, dead: 0, abandoned: 0 });
    expect((await dispatcher.backlog()).dead).toBe(0);
  });

  it('when one URL answers 410, then that URL gets no more of the event and the others still get it', async () => {
    const { hooks, create, counts, dispatcher } = await setUp(2, [50, 50]);
    const [gone, fine] = hooks as [TestReceiver, TestReceiver];
    gone.answer = (_request, response) => void response.writeHead(410).end();
    await create({ id: randomPlantId(), name: 'unwanted' });
    await eventually(() => counts.gone === 1 && counts.delivered === 1, '410 at one URL, 2xx at the other');
    await settled(dispatcher);
    expect(gone.received).toHaveLength(1);
    expect(fine.received).toHaveLength(1);
    expect(counts.dead).toBe(0);
  });

  /** A delivery whose every attempt fails: dead, counted, in the backlog. */
  async function deadDelivery() {
    const started = await setUp(1, [30, 30]);
    const { hooks, create, counts, dispatcher } = started;
    const hook = hooks[0] as TestReceiver;
    hook.answer = (_request, response) => void response.writeHead(500).end();
    const plant = { id: randomPlantId(), name: 'stubborn' };
    await create(plant);
    await eventually(() => counts.dead === 1, 'dead after three attempts');
    await eventually(async () => (await dispatcher.backlog()).dead === 1, 'one dead delivery in the backlog');
    expect(hook.received).toHaveLength(3);
    expect(counts.attemptsFailed).toBe(3);
    return { ...started, hook, plant };
  }

  it('when every attempt fails, then the delivery is dead and counted', async () => {
    await deadDelivery();
  });

  const { redeliver } = tests;
  if (redeliver)
    it('when an operator redelivers the dead deliveries (pnpm webhooks:redeliver), then each is sent again, with its webhook-id, until delivered', async () => {
      const { storage, hook, plant, counts, dispatcher } = await deadDelivery();
      hook.answer = (_request, response) => void response.writeHead(204).end();
      await expect(redeliver(storage)).resolves.toBe(1);
      dispatcher.kick();
      await eventually(() => counts.delivered === 1, 'delivered once redelivered');
      expect(hook.received).toHaveLength(4);
      expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(1);
      expect(hook.received[3]?.body).toBe(`{"id":${plant.id},"name":"stubborn"}`);
      // The observer hears of the delivery when the receiver answers; the queue completes the job
      // after the batch's handler returns, so the backlog empties a moment later, not at once.
      await settled(dispatcher);
      expect(await dispatcher.backlog()).toStrictEqual({ dead: 0, oldestUndeliveredAt: undefined });
    });

  it('when the receiver answers 503 with Retry-After, then the next attempt waits that long', async () => {
    // Planned: 10 ms. The receiver asks for a second, within the schedule's longest wait (5 s).
    const { hooks, create, counts } = await setUp(1, [10, 5_000]);
    const hook = hooks[0] as TestReceiver;
    const at: number[] = [];
    hook.answer = (_request, response) => {
      at.push(performance.now());
      if (at.length === 1) response.writeHead(503, { 'retry-after': '1' }).end();
      else response.writeHead(200).end();
    };
    await create({ id: randomPlantId(), name: 'later' });
    await eventually(() => counts.delivered === 1, 'delivered after Retry-After');
    expect(at).toHaveLength(2);
    // The wait is timed by a timer (in memory) or by the database's clock (pg-boss's startAfter):
    // either may run a few milliseconds ahead of the test's.
    expect(
      (at[1] as number) - (at[0] as number),
      'the retry no sooner than Retry-After',
    ).toBeGreaterThanOrEqual(1_000 - 50);
    expect(counts.attemptsFailed).toBe(1);
  });

  it('while the receiver is down, then the oldest undelivered event has an age, and none once delivered', async () => {
    const { hooks, create, dispatcher, counts } = await setUp(1, [100, 100, 100, 100, 100, 100]);
    const hook = hooks[0] as TestReceiver;
    let down = true;
    hook.answer = (_request, response) => void response.writeHead(down ? 502 : 200).end();
    const before = Date.now();
    await create({ id: randomPlantId(), name: 'waiting' });
    await eventually(() => counts.attemptsFailed >= 1, 'a failed attempt');
    const { oldestUndeliveredAt } = await dispatcher.backlog();
    expect(oldestUndeliveredAt?.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    down = false;
    await eventually(() => counts.delivered === 1, 'delivered once back');
    await settled(dispatcher);
  });

  it('when stop is given a grace while an attempt hangs, then it cuts the request off once the grace is spent and counts the attempt abandoned, not failed', async () => {
    // An attempt would wait ten minutes for this receiver: stop resolving at all shows it did not wait.
    const { hooks, create, counts, dispatcher } = await setUp(1, [50], 600_000);
    const hook = hooks[0] as TestReceiver;
    let cutOff = 0;
    hook.answer = (_request, response) => void response.once('close', () => cutOff++);
    await create({ id: randomPlantId(), name: 'held' });
    await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
    await dispatcher.stop(100);
    await eventually(() => cutOff === 1, 'the held request closed');
    expect(counts).toStrictEqual({ delivered: 0, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 1 });
  });

  // In memory, events end with the process (DESIGN.md): only a queue on a database is started again.
  if (tests.leg.queued)
    it('when an attempt was abandoned at stop, then a dispatcher started later on the same database makes it again, same webhook-id', async () => {
      const started = await setUp(1, [50], 600_000);
      const { hooks, create, dispatcher } = started;
      const hook = hooks[0] as TestReceiver;
      let hanging = true;
      hook.answer = (_request, response) => {
        if (!hanging) response.writeHead(204).end();
      };
      await create({ id: randomPlantId(), name: 'abandoned' });
      await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
      await dispatcher.stop(0);
      hanging = false;
      const later = countingObserver();
      await tests.startAgain(started, later.observer);
      // pg-boss retries the job the stop failed 5 to 10 s later.
      await eventually(() => later.counts.delivered === 1, 'delivered by the next dispatcher', 60_000);
      expect(hook.received).toHaveLength(2);
      expect(hook.received[1]?.id).toBe(hook.received[0]?.id);
      expect(hook.verified()).toHaveLength(2);
    });

  if (tests.leg.queued)
    it('when a relay hands on many events, then their first attempts are queued a batch of them a job, and every URL gets each one once', async () => {
      let relays = 0;
      const { counts, observer } = countingObserver();
      const { hooks, storage, dispatcher } = await tests.start({
        urls: 2,
        schedule: [50],
        observer,
        outbox: (outbox) => ({
          ...outbox,
          relay: async (limit, forward) => {
            const moved = await outbox.relay(limit, forward);
            if (moved > 0) relays += 1;
            return moved;
          },
        }),
      });
      const plants = Array.from({ length: 60 }, (_, index) => ({
        id: randomPlantId(),
        name: `plant ${index}`,
      }));
      // Stored together and handed on by as few relays as the outbox's timing allows.
      await Promise.all(plants.map((plant) => storage.plants.insertIfAbsent(plant, plantCreated(plant))));
      dispatcher.kick();
      await eventually(() => hooks.every((hook) => hook.received.length >= 60), 'sixty deliveries per URL');
      await settled(dispatcher);
      for (const hook of hooks) {
        expect(new Set(hook.received.map((entry) => entry.id)).size).toBe(60);
        expect(hook.received).toHaveLength(60);
        expect(hook.verified()).toHaveLength(60);
      }
      let jobs = 0;
      await tests.onQueue(storage, async (boss) => {
        for (const queue of [BATCH_QUEUE, DELIVERY_QUEUE]) jobs += (await boss.findJobs(queue)).length;
      });
      // 120 deliveries: at most 25 a job, and a relay's last job may hold fewer.
      expect(jobs).toBeGreaterThan(0);
      expect(jobs).toBeLessThanOrEqual(Math.ceil(120 / 25) + relays);
      expect(counts).toStrictEqual({ delivered: 120, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 });
    });

  if (tests.leg.queued)
    it('when stop cuts short one attempt of a batch, then only that one is made again, same webhook-id, and the ones that ended are not', async () => {
      const started = await setUp(2, [50], 600_000);
      const { hooks, create, dispatcher } = started;
      const [quick, held] = hooks as [TestReceiver, TestReceiver];
      let holding = true;
      held.answer = (_request, response) => {
        if (!holding) response.writeHead(204).end();
      };
      await create({ id: randomPlantId(), name: 'half delivered' });
      await eventually(
        () => quick.received.length === 1 && held.received.length === 1,
        'both attempts reached their receivers',
      );
      await dispatcher.stop(100);
      holding = false;
      const later = countingObserver();
      const next = await tests.startAgain(started, later.observer);
      await eventually(() => later.counts.delivered === 1, 'the cut-short attempt made again and delivered');
      await settled(next);
      expect(held.received).toHaveLength(2);
      expect(held.received[1]?.id).toBe(held.received[0]?.id);
      expect(quick.received).toHaveLength(1);
      expect(later.counts).toStrictEqual({ delivered: 1, attemptsFailed: 0, gone: 0, dead: 0, abandoned: 0 });
    });

  if (tests.leg.queued)
    it("when an attempt is abandoned after pg-boss's own retries are spent, then the delivery is kept as dead, not dropped", async () => {
      const started = await setUp(1, [50], 600_000);
      const { hooks, create, dispatcher } = started;
      const hook = hooks[0] as TestReceiver;
      let hanging = true;
      hook.answer = (_request, response) => {
        if (!hanging) response.writeHead(204).end();
      };
      // First attempts queued from now on (in batches) have no retry of pg-boss's left: the first
      // failure is their last.
      await tests.onQueue(started.storage, (boss) => boss.updateQueue(BATCH_QUEUE, { retryLimit: 0 }));
      await create({ id: randomPlantId(), name: 'out of retries' });
      await eventually(() => hook.received.length === 1, 'the attempt reached the receiver');
      await dispatcher.stop(0);

      hanging = false;
      const later = countingObserver();
      const next = await tests.startAgain(started, later.observer);
      await eventually(async () => (await next.backlog()).dead === 1, 'one dead delivery');
      await expect(tests.redeliver?.(started.storage)).resolves.toBe(1);
      await eventually(() => later.counts.delivered === 1, 'delivered once redelivered');
      expect(hook.received).toHaveLength(2);
      expect(hook.received[1]?.id).toBe(hook.received[0]?.id);
    });
});
