import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { openPostgresPlantStorage } from '@plant-store/storage-postgres';
import { provideTestPostgres } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/start.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

const AUTH = { Authorization: `Bearer ${TOKEN}` };

async function scrape(server: TestServer): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, { headers: AUTH });
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample line, e.g. `name{a="b"}`, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(openMemoryPlantStorage());
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('when asked without the bearer token, then it answers 401 like the API', async () => {
    const response = await fetch(`${server.url}/metrics`);
    await expectErrorResponse(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    await expectErrorResponse(
      await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } }),
      401,
    );
  });

  it('when asked with the token, then it answers the Prometheus text format, with process metrics', async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: AUTH });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text).toContain('# TYPE plant_store_http_requests_total counter');
    expect(text).toContain('# TYPE plant_store_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE plant_store_plants_created_total counter');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('when plants are created, retried and refused, then requests are counted by route and status, and only new plants as created', async () => {
    const before = await scrape(server);
    const created = sample(before, 'plant_store_plants_created_total') ?? 0;
    const ok =
      sample(before, 'plant_store_http_requests_total{method="POST",route="/plants",status="200"}') ?? 0;
    const id = 10_000 + Math.floor(Math.random() * 1_000_000);
    expect((await server.createPlant({ id, name: 'counted' })).status).toBe(200);
    expect((await server.createPlant({ id, name: 'counted' })).status).toBe(200);
    expect((await server.createPlant({ id, name: 'other' })).status).toBe(409);
    expect((await server.createPlant('{')).status).toBe(400);

    const after = await scrape(server);
    expect(sample(after, 'plant_store_plants_created_total')).toBe(created + 1);
    expect(sample(after, 'plant_store_http_requests_total{method="POST",route="/plants",status="200"}')).toBe(
      ok + 2,
    );
    expect(
      sample(after, 'plant_store_http_requests_total{method="POST",route="/plants",status="409"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'plant_store_http_requests_total{method="POST",route="/plants",status="400"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        after,
        'plant_store_http_request_duration_seconds_count{method="POST",route="/plants",status="200"}',
      ),
    ).toBe(ok + 2);
    expect(after).toMatch(
      /^plant_store_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/plants",status="200"\} \d+$/m,
    );
  });

  it('when plants are replaced, patched and deleted, then no creation is counted (changes send no webhook), and the requests are counted by route', async () => {
    const id = 20_000 + Math.floor(Math.random() * 1_000_000);
    expect((await server.createPlant({ id, name: 'changed' })).status).toBe(200);
    const before = await scrape(server);
    const change = (method: string, type: string, body: string) =>
      fetch(`${server.url}/plants/${id}`, { method, headers: { ...AUTH, 'Content-Type': type }, body });
    expect((await change('PUT', 'application/json', '{"name":"replaced"}')).status).toBe(200);
    expect((await change('PATCH', 'application/merge-patch+json', '{"tag":"patched"}')).status).toBe(200);
    expect((await fetch(`${server.url}/plants/${id}`, { method: 'DELETE', headers: AUTH })).status).toBe(204);
    const after = await scrape(server);
    expect(sample(after, 'plant_store_plants_created_total')).toBe(
      sample(before, 'plant_store_plants_created_total'),
    );
    for (const [method, status] of [
      ['PUT', 200],
      ['PATCH', 200],
    ] as const) {
      const series = `plant_store_http_requests_total{method="${method}",route="/plants/:id",status="${status}"}`;
      expect(sample(after, series), series).toBe((sample(before, series) ?? 0) + 1);
    }
  });

  it('when requests are timed, then the latency buckets are cumulative and end at +Inf with the count', async () => {
    for (let i = 0; i < 5; i += 1) await fetch(`${server.url}/healthz`);
    const text = await scrape(server);
    const labels = 'method="GET",route="/healthz",status="200"';
    const buckets = text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('plant_store_http_request_duration_seconds_bucket{') && line.includes(labels),
      )
      .map((line) => ({ le: /le="([^"]+)"/.exec(line)?.[1], value: Number(line.split(' ').at(-1)) }));
    const count = sample(text, `plant_store_http_request_duration_seconds_count{${labels}}`);
    expect(count).toBeGreaterThanOrEqual(5);
    expect(buckets.at(-1)).toEqual({ le: '+Inf', value: count });
    const values = buckets.map((bucket) => bucket.value);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(sample(text, `plant_store_http_request_duration_seconds_sum{${labels}}`)).toBeGreaterThan(0);
  });

  it('when unknown paths are asked, then they count as route="unmatched" and the raw path never becomes a label', async () => {
    for (const path of ['/secret-path-a1', '/secret-path-b2', '/secret-path-c3'])
      await fetch(`${server.url}${path}`);
    // A path with a parameter counts under its route, never under the raw path.
    expect((await fetch(`${server.url}/plants/123`)).status).toBe(401);
    const wrongMethod = await fetch(`${server.url}/plants`, { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    const text = await scrape(server);
    expect(text).not.toContain('secret-path');
    expect(text).not.toContain('/plants/123');
    expect(
      sample(text, 'plant_store_http_requests_total{method="GET",route="unmatched",status="404"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'plant_store_http_requests_total{method="PUT",route="/plants",status="405"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'plant_store_http_requests_total{method="GET",route="/plants/:id",status="401"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'plant_store_http_requests_in_flight')).toBe(1);
  });

  it('when storage has no connection pool (memory), then no pool metrics are reported', async () => {
    expect(await scrape(server)).not.toContain('plant_store_db_pool');
  });
});

const postgres = await provideTestPostgres();
afterAll(async () => {
  await postgres?.cleanup();
});

describe.skipIf(!postgres)('GET /metrics on a PostgreSQL server', () => {
  it('when the storage has a pool, then its busy, idle and waiting connections and its size are reported', async () => {
    const storage = await openPostgresPlantStorage({
      connectionString: postgres?.connectionString ?? '',
      poolSize: 7,
    });
    const server = await startTestServer(storage, {}, { connectionPool: () => storage.connectionPool() });
    try {
      const id = 10_000 + Math.floor(Math.random() * 1_000_000);
      await Promise.all(
        Array.from({ length: 5 }, (_, i) => server.createPlant({ id: id + i, name: 'pooled' })),
      );
      const text = await scrape(server);
      expect(sample(text, 'plant_store_db_pool_max_connections')).toBe(7);
      const idle = sample(text, 'plant_store_db_pool_connections{state="idle"}') ?? -1;
      const busy = sample(text, 'plant_store_db_pool_connections{state="busy"}') ?? -1;
      expect(idle).toBeGreaterThanOrEqual(1);
      expect(busy).toBeGreaterThanOrEqual(0);
      expect(idle + busy).toBeLessThanOrEqual(7);
      expect(sample(text, 'plant_store_db_pool_waiting')).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('when the service opens the server named by DATABASE_URL, then the pool it opened is reported', async () => {
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: postgres?.connectionString ?? '',
      API_TOKENS: TOKEN,
      LOG_LEVEL: 'silent',
    });
    const server = await startServer(config);
    try {
      const response = await fetch(`${server.url}/metrics`, { headers: AUTH });
      expect(response.status).toBe(200);
      const text = await response.text();
      // openPostgresPlantStorage's default pool size.
      expect(sample(text, 'plant_store_db_pool_max_connections')).toBe(10);
      expect(sample(text, 'plant_store_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
    } finally {
      await server.stop();
    }
  });
});
