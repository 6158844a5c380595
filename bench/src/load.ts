// The load generator: autocannon in this process, keep-alive connections, one POST /plants per
// request with a body of its own (a unique id each time), or one GET of a path of its own (the
// reads), bounded in time.
import { randomBytes } from 'node:crypto';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';

interface LoadBase {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly token: string;
  /** Told the status of every answer, for a target that wants one status and no other. */
  readonly onStatus?: (status: number) => void;
}

/** `POST /plants` with `nextBody()` as each request's body, or `GET nextPath()` for each request. */
export type LoadOptions = LoadBase &
  (
    | { readonly nextBody: () => string; readonly nextPath?: undefined }
    | { readonly nextPath: () => string; readonly nextBody?: undefined }
  );

export interface LoadResult {
  readonly connections: number;
  readonly durationSeconds: number;
  /** 2xx answers per second. */
  readonly requestsPerSecond: number;
  readonly ok: number;
  readonly non2xx: number;
  /** Socket errors and timeouts. */
  readonly socketErrors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** CPU the load generator (this process) used, in % of one core. */
  readonly loadGeneratorCpuPercent: number;
}

/** The one payload every target gets; only the id changes. */
export function plantBody(id: bigint | number): string {
  return `{"id":${id},"name":"Monstera deliciosa","tag":"aroid"}`;
}

// Ids unique across the whole run, starting at a random point in [2^53, 2^62) so every target
// also gets ids that a double cannot hold, and so two runs on one database do not collide.
const INT64_START = 2n ** 53n + (BigInt(`0x${randomBytes(8).toString('hex')}`) % (2n ** 62n - 2n ** 54n));
let nextInt64 = INT64_START;
export function nextInt64Body(): string {
  nextInt64 += 1n;
  return plantBody(nextInt64);
}

// json-server parses ids into doubles and refuses a second plant with an equal double, so it
// gets small ids of its own: the same payload otherwise.
let nextSafeId = 0;
export function nextSafeIntegerBody(): string {
  nextSafeId += 1;
  return plantBody(nextSafeId);
}

const HARD_STOP_GRACE_MS = 30_000;

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  // autocannon keeps latency in whole milliseconds; at c1 on loopback that rounds everything to
  // 0 or 1, so latencies are kept here in microseconds, as autocannon does for 2xx answers only.
  const latencyUs = createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 });
  let request: autocannon.Request;
  if (options.nextPath === undefined) {
    const { nextBody } = options;
    request = { method: 'POST', path: '/plants', setupRequest: (sent) => ({ ...sent, body: nextBody() }) };
  } else {
    const { nextPath } = options;
    request = { method: 'GET', setupRequest: (sent) => ({ ...sent, path: nextPath() }) };
  }
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationSeconds,
        timeout: 10,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(options.nextPath === undefined ? { 'content-type': 'application/json' } : {}),
        },
        requests: [request],
      },
      (error, result) => {
        clearTimeout(hardStop);
        if (error) return reject(error);
        const cpu = process.cpuUsage(cpuBefore);
        const wallMs = performance.now() - wallBefore;
        const ok = result['2xx'];
        resolve({
          connections: options.connections,
          durationSeconds: result.duration,
          requestsPerSecond: ok / result.duration,
          ok,
          non2xx: result.non2xx,
          socketErrors: result.errors,
          p50Ms: latencyUs.count === 0 ? Number.NaN : latencyUs.percentile(50) / 1000,
          p99Ms: latencyUs.count === 0 ? Number.NaN : latencyUs.percentile(99) / 1000,
          maxMs: latencyUs.count === 0 ? Number.NaN : latencyUs.max / 1000,
          loadGeneratorCpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
        });
      },
    );
    instance.on(
      'response',
      (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
        options.onStatus?.(statusCode);
        if (statusCode >= 200 && statusCode < 300)
          latencyUs.record(Math.max(1, Math.round(responseTimeMs * 1000)));
      },
    );
    // autocannon ends by itself after the duration; this only guards against a hung server.
    const hardStop = setTimeout(() => instance.stop(), options.durationSeconds * 1000 + HARD_STOP_GRACE_MS);
  });
}
