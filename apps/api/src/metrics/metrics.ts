import type { ConnectionPoolStats } from '@plant-store/storage-postgres';
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { TraceExportFigures } from '../tracing/tracing.ts';
import type { WebhookFigures } from '../webhooks.ts';

/** The labels of one request. Every value is from a small fixed set, so series stay few. */
export interface RequestLabels {
  /** A method Node's parser knows (it refuses any other). */
  readonly method: string;
  /** The matched route pattern (`/plants`), or `unmatched`: never the raw path, which clients choose. */
  readonly route: string;
  readonly status: string;
}

/** The service's Prometheus metrics, in a registry of their own (not prom-client's global one). */
export interface Metrics {
  readonly registry: Registry;
  requestStarted(): void;
  /** A request answered: its method, its route (see request-metrics.ts routeOf), its status. */
  requestFinished(method: string, route: string, status: number, seconds: number): void;
  plantCreated(): void;
}

export interface MetricsOptions {
  /** The storage's connection pool, reported at each scrape; absent where storage has no pool. */
  readonly connectionPool?: (() => ConnectionPoolStats) | undefined;
  /** Node's process metrics (CPU, memory, event loop lag, GC). Once per process: the real server only. */
  readonly processMetrics?: boolean;
  /** The identity provider's keys, when JWT access tokens are on. */
  readonly jwtKeys?: { ageSeconds(): number | undefined; failedFetches(): number } | undefined;
  /** The webhook's counts and queue, when WEBHOOK_URLS is set. */
  readonly webhooks?: WebhookFigures | undefined;
  /** What became of the spans, when tracing is on. */
  readonly traceExport?: TraceExportFigures | undefined;
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

const REQUEST_DURATION = 'plant_store_http_request_duration_seconds';

/**
 * The request latency histogram as prom-client's registry reads a metric (name, get, reset), in
 * prom-client's own exposition: `_bucket` series with `le` first and cumulative counts, `+Inf`,
 * `_sum` and `_count`.
 */
function requestDurationMetric(series: ReadonlyMap<string, RequestSeries>, reset: () => void) {
  const help = 'Time from a request reaching the app to its answer, by method, matched route and status.';
  const values = () =>
    [...series.values()].flatMap(({ labels, count, sumSeconds, perBucket }) => {
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
    reset,
  };
  return metric as unknown as Metric;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  // Profiling showed prom-client hashing and validating the label values on every inc and observe,
  // labelled children included (10 to 15 us a request, more than any other part of the app). So a
  // request only adds to plain numbers here, and prom-client reads them when Prometheus scrapes.
  const series = new Map<string, RequestSeries>();
  // The same series by route, method and status: strings the router and Node's parser hold, whose hash
  // V8 keeps, and a number. A key built per request (and hashed anew) cost more than the counting.
  const byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  let inFlightNow = 0;
  let createdSoFar = 0;

  new Counter({
    name: 'plant_store_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, count } of series.values()) this.inc({ ...labels }, count);
    },
  });
  registry.registerMetric(
    requestDurationMetric(series, () => {
      series.clear();
      byRoute.clear();
    }),
  );
  new Gauge({
    name: 'plant_store_http_requests_in_flight',
    help: 'Requests being handled now.',
    registers: [registry],
    collect() {
      this.set(inFlightNow);
    },
  });
  new Counter({
    name: 'plant_store_plants_created_total',
    help: 'Plants stored for the first time (a retry of a stored plant does not count).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(createdSoFar);
    },
  });

  const pool = options.connectionPool;
  if (pool !== undefined) {
    new Gauge({
      name: 'plant_store_db_pool_connections',
      help: 'Database connections open in the pool, by state (busy, idle).',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = pool();
        this.set({ state: 'busy' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
      },
    });
    new Gauge({
      name: 'plant_store_db_pool_waiting',
      help: 'Database operations waiting for a free connection of the pool.',
      registers: [registry],
      collect() {
        this.set(pool().waiting);
      },
    });
    new Gauge({
      name: 'plant_store_db_pool_max_connections',
      help: 'The most connections the pool opens.',
      registers: [registry],
      collect() {
        this.set(pool().max);
      },
    });
  }

  const jwtKeys = options.jwtKeys;
  if (jwtKeys !== undefined) {
    new Gauge({
      name: 'plant_store_jwt_keys_age_seconds',
      help: "Seconds since the identity provider's keys were last fetched (-1: never yet). Known keys are used up to 24 h.",
      registers: [registry],
      collect() {
        this.set(jwtKeys.ageSeconds() ?? -1);
      },
    });
    new Gauge({
      name: 'plant_store_jwt_key_fetch_failures',
      help: "Fetches of the identity provider's keys (JWKS) that failed since start.",
      registers: [registry],
      collect() {
        this.set(jwtKeys.failedFetches());
      },
    });
  }

  const webhooks = options.webhooks;
  if (webhooks !== undefined) registerWebhookMetrics(registry, webhooks);
  if (options.traceExport !== undefined) registerTraceMetrics(registry, options.traceExport);

  return {
    registry,
    requestStarted: () => {
      inFlightNow += 1;
    },
    requestFinished: (method, route, status, seconds) => {
      inFlightNow -= 1;
      let byMethod = byRoute.get(route);
      if (byMethod === undefined) {
        byMethod = new Map();
        byRoute.set(route, byMethod);
      }
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        byMethod.set(method, byStatus);
      }
      let one = byStatus.get(status);
      if (one === undefined) {
        const labels = { method, route, status: String(status) };
        const key = `${method} ${route} ${labels.status}`;
        one = { labels, count: 0, sumSeconds: 0, perBucket: LATENCY_BUCKETS.map(() => 0) };
        series.set(key, one);
        byStatus.set(status, one);
      }
      one.count += 1;
      one.sumSeconds += seconds;
      for (let index = 0; index < LATENCY_BUCKETS.length; index += 1) {
        if (seconds <= (LATENCY_BUCKETS[index] as number)) {
          one.perBucket[index] = (one.perBucket[index] ?? 0) + 1;
          break;
        }
      }
    },
    plantCreated: () => {
      createdSoFar += 1;
    },
  };
}

function registerWebhookMetrics(registry: Registry, webhooks: WebhookFigures): void {
  new Counter({
    name: 'plant_store_webhooks_delivered_total',
    help: 'Webhook deliveries a receiver answered with 2xx (one per event and URL; a redelivery counts again).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(webhooks.delivered());
    },
  });
  new Counter({
    name: 'plant_store_webhook_attempts_failed_total',
    help: 'Webhook attempts that failed: a status other than 2xx, a timeout, a network error.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(webhooks.attemptsFailed());
    },
  });
  // Read from the queue at each scrape: the same figures on every replica of one database.
  let backlog: ReturnType<WebhookFigures['dispatcher']['backlog']> | undefined;
  const readBacklog = () => {
    backlog ??= webhooks.dispatcher.backlog().finally(() => {
      backlog = undefined;
    });
    return backlog;
  };
  new Gauge({
    name: 'plant_store_webhooks_dead',
    help: 'Webhook deliveries whose last attempt failed, kept until an operator redelivers them (pnpm webhooks:redeliver).',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).dead);
    },
  });
  new Gauge({
    name: 'plant_store_webhooks_oldest_undelivered_age_seconds',
    help: 'Age of the oldest plant-created event not yet delivered to every URL (dead ones aside); 0 when none waits.',
    registers: [registry],
    async collect() {
      const { oldestUndeliveredAt } = await readBacklog();
      this.set(
        oldestUndeliveredAt === undefined
          ? 0
          : Math.max(0, (Date.now() - oldestUndeliveredAt.getTime()) / 1000),
      );
    },
  });
}

function registerTraceMetrics(registry: Registry, traces: TraceExportFigures): void {
  new Counter({
    name: 'plant_store_trace_spans_exported_total',
    help: 'Spans the OTLP collector accepted.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(traces.exported());
    },
  });
  new Counter({
    name: 'plant_store_trace_spans_dropped_total',
    help: 'Spans never exported: the queue was full (queue_full; OTEL_BSP_MAX_QUEUE_SIZE), or the collector refused them or did not answer in time (export_failed).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      const { queueFull, exportFailed } = traces.dropped();
      this.inc({ reason: 'queue_full' }, queueFull);
      this.inc({ reason: 'export_failed' }, exportFailed);
    },
  });
}
