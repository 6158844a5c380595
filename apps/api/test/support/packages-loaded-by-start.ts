// Run as a child process, with the service's environment: starts the service as main.ts does (the
// configuration from the environment, tracing when it is on, then startServer), stops it, and prints as JSON every package
// whose code was loaded on the way. Hooks see each module as it loads, dynamic imports included.
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

/** `pg`, `@electric-sql/pglite`; `packages/storage-postgres` for the workspace's own packages. */
function packageOf(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  const path = fileURLToPath(url);
  const dependency = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
  return dependency ?? /\/(packages\/[^/]+)\//.exec(path)?.[1];
}

const { pino } = await import('pino');
const { loadConfig } = await import('../../src/config.ts');
const { startServer } = await import('../../src/start.ts');
const { startTracing } = await import('../../src/tracing/tracing.ts');
const config = loadConfig(process.env);
const tracing = await startTracing(config, pino({ level: 'silent' }));
const server = await startServer(config, { traceExport: tracing?.figures });
await server.stop();
await tracing?.shutdown(1_000);
const packages = new Set([...loaded].map(packageOf).filter((name) => name !== undefined));
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
