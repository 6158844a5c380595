// The webhook on creation: `POST /plants` on PostgreSQL, the service with the webhook on (each plant
// created is POSTed to a bare node:http receiver, baselines/webhook-receiver.ts) against the same
// service with it off. Both are up at once on the same database and loaded in turn, off, on, off,
// ..., off, reading each server process's CPU time around each segment, so that others' work on the
// machine, which comes and goes, hits both sides alike. After each "on" segment the bench waits
// (bounded) until the receiver has every delivery of it: the next segment starts on a quiet service,
// and the wait is the delivery lag.
import { type LoadResult, runLoad } from './load.ts';
import { processCpuSeconds, type RunningChild } from './processes.ts';
import { median } from './report.ts';
import type { WebhookFigures } from './results.ts';

/** Rounds of off, on, off, ..., off: each "on" segment has an "off" one just before and after it. */
export const WEBHOOK_ROUNDS = 5;
export const WEBHOOK_CONNECTIONS = 64;
/** How long the receiver may take, after a segment, to have every delivery of it. */
export const DRAIN_LIMIT_SECONDS = 30;
/** Single creates sent to each service before any load: each must answer 200. */
const CHECKED_REQUESTS = 5;
const POLL_MS = 20;

interface ReceiverCount {
  readonly requests: number;
  readonly distinct: number;
  readonly withoutId: number;
}

export async function receiverCount(receiver: RunningChild): Promise<ReceiverCount> {
  const response = await fetch(`${receiver.url}/count`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the webhook receiver answered ${response.status} to GET /count`);
  return (await response.json()) as ReceiverCount;
}

/** The service's /metrics, as text (the same bearer token as the API). */
async function metricsText(service: RunningChild, token: string): Promise<string> {
  const response = await fetch(`${service.url}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${service.name}: GET /metrics answered ${response.status}: ${text}`);
  return text;
}

/** One unlabelled counter of a Prometheus text exposition; undefined when it is not there. */
export function counterValue(metrics: string, name: string): number | undefined {
  const match = new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : undefined;
}

/** Plants the service stored for the first time since it started, by its own count. */
async function createdSoFar(service: RunningChild, token: string): Promise<number> {
  const created = counterValue(await metricsText(service, token), 'plant_store_plants_created_total');
  if (created === undefined)
    throw new Error(`${service.name}: /metrics has no plant_store_plants_created_total`);
  return created;
}

interface Segment {
  readonly result: LoadResult;
  readonly cpuBefore: number;
  readonly cpuSeconds: number;
}

/** A load on one service at c64; any answer but a 200 fails the target, so that no error is measured as a create. */
async function loadSegment(
  child: RunningChild,
  token: string,
  nextBody: () => string,
  seconds: number,
): Promise<Segment> {
  const statuses = new Map<number, number>();
  const cpuBefore = processCpuSeconds(child.pid);
  const result = await runLoad({
    url: child.url,
    connections: WEBHOOK_CONNECTIONS,
    durationSeconds: seconds,
    token,
    nextBody,
    onStatus: (status) => {
      if (status !== 200) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    },
  });
  const cpuSeconds = processCpuSeconds(child.pid) - cpuBefore;
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.recentOutput()}`);
  if (result.ok === 0 || statuses.size > 0 || result.non2xx > 0 || result.socketErrors > 0) {
    const others = [...statuses].map(([status, count]) => `${count} x ${status}`).join(', ');
    throw new Error(
      `${child.name}: POST /plants answered ${result.ok} creates with a 2xx, ${others || 'no other status'}, ` +
        `${result.socketErrors} socket errors or timeouts:\n${child.recentOutput()}`,
    );
  }
  return { result, cpuBefore, cpuSeconds };
}

async function createOnce(child: RunningChild, token: string, body: string): Promise<void> {
  const response = await fetch(`${child.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${child.name}: POST /plants answered ${response.status} before the load: ${text}`);
}

interface Drained {
  /** The service's count of plants created when every one of them was received. */
  readonly created: number;
  readonly count: ReceiverCount;
  /** Seconds from `since` until the receiver had them all; undefined when the wait ran out. */
  readonly lagSeconds?: number;
  /** The service's CPU time (s) when the last delivery was received, or when the wait ran out. */
  readonly cpuAt: number;
}

/**
 * Waits until the receiver has a delivery of every plant the service created, at most `limitSeconds`
 * after `since` (performance.now()). The receiver is polled; the service is asked its count at the
 * start and once more when the receiver has caught up with it (a create the load abandoned at the
 * end of its segment may still have been committing the first time).
 */
async function drain(
  service: RunningChild,
  receiver: RunningChild,
  token: string,
  since: number,
  limitSeconds: number,
): Promise<Drained> {
  let created = await createdSoFar(service, token);
  for (;;) {
    const count = await receiverCount(receiver);
    const now = performance.now();
    if (count.distinct >= created) {
      const cpuAt = processCpuSeconds(service.pid);
      const again = await createdSoFar(service, token);
      if (again <= created) return { created, count, lagSeconds: (now - since) / 1000, cpuAt };
      created = again;
      continue;
    }
    if (now - since > limitSeconds * 1000) return { created, count, cpuAt: processCpuSeconds(service.pid) };
    if (service.exited())
      throw new Error(`${service.name} died while delivering:\n${service.recentOutput()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Runs the section against both started services and the receiver: single creates checked, a
 * warm-up of each (every answer a 200, every delivery received), then WEBHOOK_ROUNDS rounds; each
 * "on" segment's ratios are taken to the mean of the two "off" segments around it. A delivery
 * missing after DRAIN_LIMIT_SECONDS ends the rounds: the figures so far are answered with their
 * `shortfall`, for the caller to fail the target.
 */
export async function measureWebhook(options: {
  readonly off: RunningChild;
  readonly on: RunningChild;
  readonly receiver: RunningChild;
  readonly token: string;
  readonly nextBody: () => string;
  readonly segmentSeconds: number;
  readonly warmupSeconds: number;
  readonly log: (line: string) => void;
}): Promise<WebhookFigures> {
  const { off, on, receiver, token, nextBody, segmentSeconds, log } = options;
  for (const child of [off, on])
    for (let index = 0; index < CHECKED_REQUESTS; index += 1) await createOnce(child, token, nextBody());
  for (const child of [off, on]) await loadSegment(child, token, nextBody, options.warmupSeconds);

  const figures = {
    connections: WEBHOOK_CONNECTIONS,
    segmentSeconds,
    drainLimitSeconds: DRAIN_LIMIT_SECONDS,
    offCpuUsPerRequest: [] as number[],
    onCpuUsPerRequest: [] as number[],
    onCpuUsPerRequestDrained: [] as number[],
    offRequestsPerSecond: [] as number[],
    onRequestsPerSecond: [] as number[],
    rpsRatios: [] as number[],
    cpuRatios: [] as number[],
    created: [] as number[],
    lagSeconds: [] as number[],
    receivedRequests: 0,
    receivedDistinct: 0,
    expectedDeliveries: 0,
    shortfall: 0,
  };
  const settle = (drained: Drained): boolean => {
    figures.receivedRequests = drained.count.requests;
    figures.receivedDistinct = drained.count.distinct;
    figures.expectedDeliveries = drained.created;
    figures.shortfall = Math.max(0, drained.created - drained.count.distinct);
    if (drained.count.withoutId > 0)
      throw new Error(`the receiver got ${drained.count.withoutId} deliveries without a webhook-id`);
    return drained.lagSeconds !== undefined;
  };
  // The warm-up's deliveries (and the checked creates') are all in before anything is timed.
  const warmed = await drain(on, receiver, token, performance.now(), DRAIN_LIMIT_SECONDS);
  if (!settle(warmed)) {
    log(`  after the warm-up, ${figures.shortfall} of ${warmed.created} deliveries still missing`);
    return figures;
  }
  log(
    `  warm-up: ${warmed.created.toLocaleString('en-US')} plants created with the webhook on, all delivered`,
  );
  let createdBefore = warmed.created;

  const offSegment = async () => {
    const segment = await loadSegment(off, token, nextBody, segmentSeconds);
    const measured = {
      cpuUsPerRequest: (segment.cpuSeconds * 1e6) / segment.result.ok,
      requestsPerSecond: segment.result.requestsPerSecond,
    };
    figures.offCpuUsPerRequest.push(measured.cpuUsPerRequest);
    figures.offRequestsPerSecond.push(measured.requestsPerSecond);
    return measured;
  };
  let before = await offSegment();
  for (let round = 1; round <= WEBHOOK_ROUNDS; round += 1) {
    const segment = await loadSegment(on, token, nextBody, segmentSeconds);
    const drained = await drain(on, receiver, token, performance.now(), DRAIN_LIMIT_SECONDS);
    const created = drained.created - createdBefore;
    createdBefore = drained.created;
    const { ok } = segment.result;
    const onCpu = (segment.cpuSeconds * 1e6) / ok;
    const onCpuDrained = ((drained.cpuAt - segment.cpuBefore) * 1e6) / ok;
    if (!settle(drained)) {
      log(
        `  round ${round} of ${WEBHOOK_ROUNDS}: ${figures.shortfall} of ${created} deliveries still missing ` +
          `${DRAIN_LIMIT_SECONDS} s after the segment (the receiver got ${drained.count.distinct} of ${drained.created} in all)`,
      );
      return figures;
    }
    const after = await offSegment();
    const offRps = (before.requestsPerSecond + after.requestsPerSecond) / 2;
    const offCpu = (before.cpuUsPerRequest + after.cpuUsPerRequest) / 2;
    figures.onCpuUsPerRequest.push(onCpu);
    figures.onCpuUsPerRequestDrained.push(onCpuDrained);
    figures.onRequestsPerSecond.push(segment.result.requestsPerSecond);
    figures.rpsRatios.push(segment.result.requestsPerSecond / offRps);
    figures.cpuRatios.push(onCpuDrained / offCpu);
    figures.created.push(created);
    figures.lagSeconds.push(drained.lagSeconds ?? Number.NaN);
    log(
      `  round ${round} of ${WEBHOOK_ROUNDS}: on ${Math.round(segment.result.requestsPerSecond)} req/s, ` +
        `${Math.round(onCpu)} us/req (${Math.round(onCpuDrained)} delivering included); ` +
        `off ${Math.round(offRps)} req/s, ${Math.round(offCpu)} us/req; ` +
        `req/s ${(segment.result.requestsPerSecond / offRps).toFixed(2)}x, CPU/req ${(onCpuDrained / offCpu).toFixed(2)}x; ` +
        `${created} delivered ${(drained.lagSeconds ?? Number.NaN).toFixed(2)} s after the segment`,
    );
    before = after;
  }
  log(
    `  median: on ${Math.round(median(figures.onRequestsPerSecond))} req/s, off ${Math.round(median(figures.offRequestsPerSecond))} req/s; ` +
      `the receiver got ${figures.receivedRequests} requests, ${figures.receivedDistinct} distinct webhook-ids, of ${figures.expectedDeliveries} plants created`,
  );
  return figures;
}
