import type { PlantStorage } from '@plant-store/domain';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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
  requestFinished(labels: RequestLabels, seconds: number): void;
  plantCreated(): void;
}

export interface MetricsOptions {
  /** Its connection pool, when it has one, is reported at each scrape. */
  readonly storage?: PlantStorage;
  /** Node's process metrics (CPU, memory, event loop lag, GC). Once per process: the real server only. */
  readonly processMetrics?: boolean;
}

// From a fast health check to the 30 s request timeout.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'plant_store_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'plant_store_http_request_duration_seconds',
    help: 'Time from a request reaching the app to its answer, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'plant_store_http_requests_in_flight',
    help: 'Requests being handled now.',
    registers: [registry],
  });
  const created = new Counter({
    name: 'plant_store_plants_created_total',
    help: 'Plants stored for the first time (a retry of a stored plant does not count).',
    registers: [registry],
  });

  const pool = options.storage?.connectionPool?.bind(options.storage);
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

  // prom-client hashes the label values on every inc and observe; the labelled children are kept
  // instead, one per (method, route, status): a bounded set, as every value is from a fixed few.
  const series = new Map<string, { count(): void; time(seconds: number): void }>();
  const seriesOf = ({ method, route, status }: RequestLabels) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (found === undefined) {
      const counter = requests.labels(method, route, status);
      const histogram = duration.labels(method, route, status);
      found = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };

  return {
    registry,
    requestStarted: () => inFlight.inc(),
    requestFinished: (labels, seconds) => {
      inFlight.dec();
      const one = seriesOf(labels);
      one.count();
      one.time(seconds);
    },
    plantCreated: () => created.inc(),
  };
}
