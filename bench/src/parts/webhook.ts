// The webhook on creation: creates at c64 on PostgreSQL, the service with WEBHOOK_URLS set to a bare
// node:http receiver (baselines/webhook-receiver.ts) against the same service with it off, both up at
// once on the same database. After each "on" segment the bench waits until the receiver has a delivery
// of every plant that service created: the next segment starts on a quiet service, the wait is the
// delivery lag, and the "on" CPU per request counts the delivering.
import { randomBytes } from 'node:crypto';
import { resetBenchDatabase } from '../database.ts';
import {
  type Child,
  type Context,
  freshPlant,
  type Part,
  postgresUrl,
  runGroup,
  serverSide,
  startBaseline,
  startService,
} from '../harness.ts';
import type { TargetRun } from '../report.ts';

/** How long the receiver may take, after a segment, to have every delivery of it. */
const DRAIN_LIMIT_SECONDS = 30;

async function json(url: string, token?: string): Promise<string> {
  const response = await fetch(url, {
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

async function run(context: Context): Promise<TargetRun[]> {
  const url = postgresUrl(context);
  // Also drops the job queue a previous run left: its undelivered jobs would be delivered here.
  await resetBenchDatabase(url);
  const receiver = await startBaseline(context, 'webhook receiver', 'webhook-receiver.ts');
  const traffic = { token: context.token, body: freshPlant };
  // The receiver's distinct webhook-ids, and the plants the service created by its own count (a create
  // the load abandoned at the end of its segment may still have been committing).
  const received = async () =>
    (JSON.parse(await json(`${receiver.url}/count`)) as { distinct: number }).distinct;
  const created = async (child: Child) => {
    const metrics = await json(`${child.url}/metrics`, context.token);
    const count = Number(/^plant_store_plants_created_total ([0-9.e+]+)$/m.exec(metrics)?.[1]);
    if (Number.isNaN(count))
      throw new Error(`${child.name}: /metrics has no plant_store_plants_created_total`);
    return count;
  };
  const deliveries = {
    expected: 0,
    received: 0,
    lagSeconds: [] as number[],
    limitSeconds: DRAIN_LIMIT_SECONDS,
  };

  /** Waits until the receiver has a delivery of every plant the service created so far. */
  const drain = async (child: Child): Promise<void> => {
    const since = performance.now();
    for (;;) {
      const expected = await created(child);
      const got = await received();
      Object.assign(deliveries, { expected, received: got });
      if (got >= expected && (await created(child)) <= expected) break;
      if (performance.now() - since > DRAIN_LIMIT_SECONDS * 1000)
        throw new Error(
          `${expected - got} deliveries had not arrived ${DRAIN_LIMIT_SECONDS} s after the load`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    deliveries.lagSeconds.push((performance.now() - since) / 1000);
  };
  try {
    const sides = [
      serverSide(context, {
        key: 'webhook-off',
        label: 'service, PostgreSQL, webhook off',
        levels: [64],
        launch: () => startService(context, 'service (webhook off)', { DATABASE_URL: url }),
        traffic,
      }),
      serverSide(context, {
        key: 'webhook-on',
        label: 'service, PostgreSQL, webhook on',
        baselines: ['webhook-off'],
        levels: [64],
        launch: async (run) => {
          run.deliveries = deliveries;
          run.notes.push(
            "CPU per request counts the delivering: from the segment's start until its last delivery arrived",
          );
          return startService(context, 'service (webhook on)', {
            DATABASE_URL: url,
            WEBHOOK_URLS: `${receiver.url}/plant-created`,
            WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
          });
        },
        traffic,
        settle: drain,
      }),
    ];
    return await runGroup(context, sides);
  } finally {
    await receiver.stop();
  }
}

export const webhookPart: Part = { name: 'webhook', keys: [], usesPostgres: true, run };
