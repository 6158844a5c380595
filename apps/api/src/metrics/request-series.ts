import type { Metric } from 'prom-client';

/** The labels of one request. Every value is from a small fixed set, so series stay few. */
export interface RequestLabels {
  /** A method Node's parser knows (it refuses any other). */
  readonly method: string;
  /** The matched route pattern (`/plants`), or `unmatched`: never the raw path, which clients choose. */
  readonly route: string;
  readonly status: string;
}

// From a fast health check to the 30 s request timeout.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The counts of one (method, route, status): plain numbers, so that recording a request is cheap. */
interface RequestSeries {
  readonly labels: RequestLabels;
  count: number;
  sumSeconds: number;
  /** Requests per bucket of LATENCY_BUCKETS, not cumulative; slower than the last bucket: none. */
  readonly perBucket: number[];
}

/**
 * Every request series, found by route, method and status: strings the router and Node's parser hold,
 * whose hash V8 keeps, and a number. A key built per request (and hashed anew) cost more than the counting.
 */
export class RequestSeriesTable {
  readonly #byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  readonly #all: RequestSeries[] = [];

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#byRoute.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let one = byStatus.get(status);
    if (one === undefined) {
      one = {
        labels: { method, route, status: String(status) },
        count: 0,
        sumSeconds: 0,
        perBucket: LATENCY_BUCKETS.map(() => 0),
      };
      byStatus.set(status, one);
      this.#all.push(one);
    }
    one.count += 1;
    one.sumSeconds += seconds;
    for (let index = 0; index < LATENCY_BUCKETS.length; index += 1) {
      if (seconds <= (LATENCY_BUCKETS[index] as number)) {
        one.perBucket[index] = (one.perBucket[index] ?? 0) + 1;
        break;
      }
    }
  }

  all(): readonly RequestSeries[] {
    return this.#all;
  }

  clear(): void {
    this.#byRoute.clear();
    this.#all.length = 0;
  }
}

const REQUEST_DURATION = 'plant_store_http_request_duration_seconds';

/**
 * The request latency histogram as prom-client's registry reads a metric (name, get, reset), in
 * prom-client's own exposition: `_bucket` series with `le` first and cumulative counts, `+Inf`,
 * `_sum` and `_count`.
 */
export function requestDurationMetric(series: RequestSeriesTable) {
  const help = 'Time from a request reaching the app to its answer, by method, matched route and status.';
  const values = () =>
    series.all().flatMap(({ labels, count, sumSeconds, perBucket }) => {
      let cumulative = 0;
      return [
        ...LATENCY_BUCKETS.map((le, index) => {
          cumulative += perBucket[index] ?? 0;
          return { labels: { le, ...labels }, value: cumulative, metricName: `${REQUEST_DURATION}_bucket` };
        }),
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${REQUEST_DURATION}_bucket` },
        { labels: { ...labels }, value: sumSeconds, metricName: `${REQUEST_DURATION}_sum` },
        { labels: { ...labels }, value: count, metricName: `${REQUEST_DURATION}_count` },
      ];
    });
  const metric = {
    name: REQUEST_DURATION,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({
      name: REQUEST_DURATION,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: values(),
    }),
    reset: () => series.clear(),
  };
  return metric as unknown as Metric;
}
