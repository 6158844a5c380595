import type { ConnectionPoolStats } from '@plant-store/storage-postgres';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { TraceExportFigures } from '../tracing/tracing.ts';
import type { WebhookFigures } from '../webhooks.ts';
import { RequestSeriesTable, requestDurationMetric } from './request-series.ts';

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

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  // Profiling showed prom-client hashing and validating the label values on every inc and observe,
  // labelled children included (10 to 15 us a request, more than any other part of the app). So a
  // request only adds to plain numbers here, and prom-client reads them when Prometheus scrapes.
  const series = new RequestSeriesTable();
  let inFlightNow = 0;
  let createdSoFar = 0;

  new Counter({
    name: 'plant_store_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, count } of series.all()) this.inc({ ...labels }, count);
    },
  });
  registry.registerMetric(requestDurationMetric(series));
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
      series.record(method, route, status, seconds);
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
    help: 'Webhook deliveries whose last attempt failed: kept until an operator redelivers them (pnpm webhooks:redeliver), except on memory:, which counts them and keeps none.',
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
