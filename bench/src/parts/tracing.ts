// The cost of tracing (issue 23): creates at c16, on memory: and then on PostgreSQL, each storage with
// three services up at once: no OTEL_* (tracing off, nothing loaded), the OTLP endpoint set with a
// 10% ratio sampler, and with the default sampler (every request traced). They export to a bare
// node:http collector (baselines/otlp-sink.ts) on a path of their own, so that the bench can tell
// after the loads that each traced service's spans arrived, and how many bytes a create cost.
import { checkpoint, resetBenchDatabase } from '../database.ts';
import {
  type Child,
  type Context,
  cpuSeconds,
  freshPlant,
  type Part,
  postgresUrl,
  runGroup,
  type Side,
  selected,
  serverSide,
  startBaseline,
  startService,
} from '../harness.ts';
import { format, type TargetRun } from '../report.ts';

const SAMPLING = [
  { name: 'off', label: 'tracing off' },
  {
    name: '10',
    label: 'traces at 10%',
    env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
  },
  // No sampler named: the SDK's default, parent-based always on, as a user who sets only the endpoint gets.
  { name: '100', label: 'traces at 100%', env: {} },
] as const;

const STORAGES = ['memory', 'postgres'] as const;
type Storage = (typeof STORAGES)[number];
const keyOf = (sampling: string, storage: Storage) => `trace-${sampling}-${storage}`;
const labelOf = (sampling: (typeof SAMPLING)[number], storage: Storage) =>
  `service, ${storage === 'memory' ? 'memory:' : 'PostgreSQL'}, ${sampling.label}`;

interface SinkCounts {
  exports: number;
  bytes: number;
  spans: number;
  serverSpans: number;
  unread: number;
}

async function text(url: string, token?: string): Promise<string> {
  const response = await fetch(url, {
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return body;
}

/** The plants a service created and the spans it dropped (a full queue, a failed export), by its own count. */
async function serviceCounts(context: Context, child: Child): Promise<{ creates: number; dropped: number }> {
  const metrics = await text(`${child.url}/metrics`, context.token);
  const creates = Number(/^plant_store_plants_created_total ([0-9.e+]+)$/m.exec(metrics)?.[1]);
  if (Number.isNaN(creates))
    throw new Error(`${child.name}: /metrics has no plant_store_plants_created_total`);
  const dropped = [...metrics.matchAll(/^plant_store_trace_spans_dropped_total\{[^}]*\} ([0-9.e+]+)$/gm)];
  return { creates, dropped: dropped.reduce((sum, match) => sum + Number(match[1]), 0) };
}

/**
 * One service of a group. Each segment's CPU counts all the CPU the service used since its previous
 * load ended: the batch processor exports what a segment left in its queue while the other sides are
 * loaded, and that is this side's cost (the off side is counted the same way). Stopping it (SIGTERM:
 * the SDK flushes) leaves the sink's counts for its path on its run.
 */
function side(
  context: Context,
  storage: Storage,
  sampling: (typeof SAMPLING)[number],
  env: NodeJS.ProcessEnv,
  sink: { url: string; counts: () => Promise<Record<string, SinkCounts | undefined>> },
  before?: () => Promise<unknown>,
): Side {
  const key = keyOf(sampling.name, storage);
  const label = labelOf(sampling, storage);
  const traced = 'env' in sampling;
  let child: Child | undefined;
  const inner = serverSide(context, {
    key,
    label,
    ...(traced ? { baselines: [keyOf('off', storage)] } : {}),
    // The targets are at c16; every level when --connections leaves it out.
    ...(context.options.connections.includes(16) ? { levels: [16] } : {}),
    launch: async () => {
      const endpoint = traced ? { OTEL_EXPORTER_OTLP_ENDPOINT: `${sink.url}/${key}`, ...sampling.env } : {};
      child = await startService(context, `service (${key})`, { ...env, ...endpoint });
      return child;
    },
    traffic: { token: context.token, body: freshPlant },
    ...(before ? { before } : {}),
  });
  return {
    ...inner,
    start: async (run: TargetRun) => {
      const started = await inner.start(run);
      const service = child as Child;
      let since = cpuSeconds(service.pid);
      run.notes.push('CPU per request counts all the CPU the service used since its previous load ended');
      return {
        measure: async (connections, seconds) => {
          const figures = await started.measure(connections, seconds);
          const now = cpuSeconds(service.pid);
          const used = now - since;
          since = now;
          return { ...figures, cpuUsPerRequest: (used * 1e6) / figures.ok };
        },
        warm: async (connections) => {
          await started.warm?.(connections);
          since = cpuSeconds(service.pid);
        },
        stop: async () => {
          const own =
            traced && !service.exited()
              ? await serviceCounts(context, service).catch(() => ({ creates: 0, dropped: 0 }))
              : { creates: 0, dropped: 0 };
          await started.stop();
          if (!traced) return;
          // Nothing at its path is what a service with tracing silently off leaves: its target fails.
          const counts = (await sink.counts().catch(() => ({}) as Record<string, undefined>))[key] ?? {
            exports: 0,
            bytes: 0,
            spans: 0,
            serverSpans: 0,
            unread: 0,
          };
          const { unread, ...received } = counts;
          run.traces = { ...received, ...own };
          if (unread > 0)
            run.notes.push(`${unread} of the sink's exports could not be read: their spans are not counted`);
          context.log(
            `    ${key}: ${format.rps(counts.spans)} spans in ${format.rps(counts.exports)} exports, ` +
              `${format.rps(counts.bytes / Math.max(1, own.creates))} bytes per create`,
          );
        },
      };
    },
  };
}

async function run(context: Context): Promise<TargetRun[]> {
  const sink = await startBaseline(context, 'OTLP sink', 'otlp-sink.ts');
  const counts = async () => JSON.parse(await text(`${sink.url}/count`));
  const runs: TargetRun[] = [];
  try {
    for (const storage of STORAGES) {
      const wanted = SAMPLING.filter((sampling) =>
        selected(context, 'tracing', keyOf(sampling.name, storage)),
      );
      if (wanted.length === 0) continue;
      try {
        let env: NodeJS.ProcessEnv = { DATABASE_URL: 'memory:' };
        let before: (() => Promise<unknown>) | undefined;
        if (storage === 'postgres') {
          const url = postgresUrl(context);
          await resetBenchDatabase(url);
          env = { DATABASE_URL: url };
          before = () => checkpoint(url);
        }
        const sides = wanted.map((sampling) =>
          side(context, storage, sampling, env, { url: sink.url, counts }, before),
        );
        // Off, 10%, off, 100% each round, as plain brackets the hostile bodies: each traced segment sits
        // between two of the off side's, and neither traced side ever follows the other.
        const off = keyOf('off', storage);
        const order = wanted.flatMap((sampling) =>
          sampling.name === 'off' ? [] : [off, keyOf(sampling.name, storage)],
        );
        runs.push(...(await runGroup(context, sides, order.length > 0 ? { order } : {})));
      } catch (error) {
        // PostgreSQL unusable: the memory: figures stand, these sides say why they have none.
        const message = error instanceof Error ? error.message : String(error);
        context.log(`  FAILED (tracing on ${storage}): ${message}`);
        for (const sampling of wanted)
          runs.push({
            key: keyOf(sampling.name, storage),
            label: labelOf(sampling, storage),
            baselines: sampling.name === 'off' ? [] : [keyOf('off', storage)],
            segments: [],
            notes: [],
            error: message,
          });
      }
    }
  } finally {
    await sink.stop();
  }
  return runs;
}

export const tracingPart: Part = {
  name: 'tracing',
  keys: STORAGES.flatMap((storage) => SAMPLING.map((sampling) => keyOf(sampling.name, storage))),
  usesPostgres: true,
  run,
};
