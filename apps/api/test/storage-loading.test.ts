import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./support/packages-loaded-by-start.ts', import.meta.url));

/** The packages the service loads from start to stop with this environment, in a process of its own. */
async function packagesLoadedBy(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@plant-store/source', CHILD],
    { env: { PORT: '0', API_TOKENS: 'loading-test', LOG_LEVEL: 'silent', ...env } },
  );
  return JSON.parse(stdout) as string[];
}

describe('which storage and tracing code the service loads', () => {
  it('when DATABASE_URL is memory:, then it loads the memory adapter, and neither pg, PGlite, kysely nor the PostgreSQL adapter', async () => {
    const packages = await packagesLoadedBy({ DATABASE_URL: 'memory:' });
    // The adapter it runs on is imported the same way, when chosen: seen here, so the others would be.
    expect(packages).toContain('packages/storage-memory');
    expect(packages).not.toContain('packages/storage-postgres');
    for (const driver of ['pg', 'pg-pool', '@electric-sql/pglite', 'kysely'])
      expect(packages).not.toContain(driver);
  });

  it('when no OTLP endpoint is set, then the OpenTelemetry SDK and its exporters are not loaded', async () => {
    const packages = await packagesLoadedBy({ DATABASE_URL: 'memory:' });
    // The API the code makes its spans through is loaded (a no-op without the SDK), and the conventions' names.
    expect(packages.filter((name) => name.startsWith('@opentelemetry/'))).toEqual([
      '@opentelemetry/api',
      '@opentelemetry/semantic-conventions',
    ]);
  });

  it('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then the Node SDK and its OTLP exporter are loaded', async () => {
    const packages = await packagesLoadedBy({
      DATABASE_URL: 'memory:',
      // Nothing listens there: the spans of this start and stop are dropped, which costs the start nothing.
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect(packages).toContain('@opentelemetry/sdk-node');
    expect(packages).toContain('@opentelemetry/exporter-trace-otlp-proto');
  });

  it('when OTEL_SDK_DISABLED is true, then an OTLP endpoint loads no SDK either', async () => {
    const packages = await packagesLoadedBy({
      DATABASE_URL: 'memory:',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(packages).not.toContain('@opentelemetry/sdk-node');
  });
});
