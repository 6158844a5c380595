// A caller's trace context reaches the identity provider with a JWKS refetch its token caused; its
// baggage does not. The service runs as `pnpm start` runs it, tracing to a receiver of the test's own.
// A file of its own: the refetch waits out the key store's cooldown (30 s), beside the other files.
import { randomBytes } from 'node:crypto';
import { eventually, type OtlpReceiver, startOtlpReceiver } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, signingKey, startTestProvider, type TestProvider } from './support/jwks-server.ts';
import { killLeftoverRuns, listeningUrl, type Run, runMain } from './support/run-main.ts';

// The key store's fixed bound on refetches for unknown key ids (jwks-keys.ts).
const UNKNOWN_KID_COOLDOWN_MS = 30_000;

afterAll(killLeftoverRuns);

describe("a JWKS refetch caused by a request with a caller's baggage", { timeout: 120_000 }, () => {
  let provider: TestProvider;
  let collector: OtlpReceiver;
  let run: Run;
  let url: string;

  beforeAll(async () => {
    provider = await startTestProvider();
    provider.publish([await signingKey('ES256', 'before')]);
    collector = await startOtlpReceiver({ host: '127.0.0.2' });
    run = runMain({
      PORT: '0',
      DATABASE_URL: 'memory:',
      API_TOKENS: 'static-token',
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    url = await listeningUrl(run);
  }, 120_000);
  afterAll(async () => {
    run?.child.kill('SIGTERM');
    expect(await run?.exited).toBe(0);
    await collector?.close();
    await provider?.close();
  });

  it("when a token names a key the provider added since, then the refetch carries the request's traceparent and no baggage", async () => {
    await eventually(() => provider.jwksFetches() > 0, 'the first load of the keys');
    const rotated = await signingKey('ES256', 'after');
    provider.publish([rotated]);
    // Only once the cooldown since the first load has passed does an unknown kid cause a refetch.
    const firstLoad = provider.requests().find((request) => request.path === '/jwks')?.at ?? Date.now();
    await eventually(
      () => Date.now() > firstLoad + UNKNOWN_KID_COOLDOWN_MS,
      'the end of the cooldown',
      UNKNOWN_KID_COOLDOWN_MS + 10_000,
    );
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${url}/plants/1`, {
      headers: {
        authorization: `Bearer ${await provider.token(rotated)}`,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        baggage: 'session=SECRET123',
      },
    });
    expect(response.status).toBe(404);
    const refetches = provider
      .requests()
      .filter((request) => request.path === '/jwks')
      .slice(1);
    expect(refetches).toHaveLength(1);
    expect(refetches[0]?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(refetches[0]?.headers.baggage).toBeUndefined();
  });
});
