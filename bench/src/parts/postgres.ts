// The service on a PostgreSQL server against "node:http + kysely" (the same insert built by kysely and
// compiled once, on a pool of the service's size), with the floor and the ceiling beside it for
// reference: node:http + pg sending the insert's text, and pgbench. All up at once on the bench
// database, the api's image too (image.ts); a CHECKPOINT before every segment.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { checkpoint, resetBenchDatabase, withClient } from '../database.ts';
import {
  type Context,
  freshPlant,
  machineCpu,
  type Part,
  postgresUrl,
  runGroup,
  type Side,
  selected,
  serverSide,
  startBaseline,
  startService,
  tempDir,
  track,
} from '../harness.ts';
import type { Figures } from '../report.ts';
import { imageSide } from './image.ts';

const SCRIPT = `\\set id random(1, 9223372036854775806)
INSERT INTO pgbench_plants (id, name, tag) VALUES (:id, 'Monstera deliciosa', 'aroid') ON CONFLICT DO NOTHING;
`;

/** The version of the pgbench on PATH, for the record; undefined when there is none. */
export function pgbenchVersion(): Promise<string | undefined> {
  return pgbench(['--version'], 10).then(
    (out) => out.trim(),
    () => undefined,
  );
}

function pgbench(args: string[], seconds: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = track(spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      out += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`pgbench ${args.join(' ')} failed (${code}):\n${out}`));
    });
  });
}

/**
 * pgbench: one INSERT ... ON CONFLICT DO NOTHING a transaction, prepared, the database's own ceiling
 * here; a segment rounded to whole seconds; p50 and p99 from its log of every transaction.
 */
function pgbenchSide(url: string): Side {
  return {
    key: 'pgbench',
    label: 'reference: pgbench INSERT',
    start: async (run) => {
      await withClient(url, (client) =>
        client.query('CREATE TABLE pgbench_plants (id bigint PRIMARY KEY, name text NOT NULL, tag text)'),
      );
      run.notes.push('pgbench -M prepared -j 2 (1 at c1), random ids; p50/p99 from its per-transaction log');
      return {
        measure: async (connections, time): Promise<Figures> => {
          await checkpoint(url);
          const dir = tempDir('pgbench');
          const seconds = Math.max(1, Math.round(time));
          writeFileSync(join(dir, 'insert.sql'), SCRIPT);
          const machine = machineCpu();
          const out = await pgbench(
            ['-n', '-M', 'prepared', '-f', join(dir, 'insert.sql'), '-c', String(connections)].concat([
              '-j',
              String(Math.min(connections, 2)),
              '-T',
              String(seconds),
              '-l',
              `--log-prefix=${join(dir, 'tx')}`,
              url,
            ]),
            seconds,
          );
          const after = machineCpu();
          const latencyUs = createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 });
          for (const file of readdirSync(dir).filter((name) => name.startsWith('tx.')))
            for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
              // client_id transaction_no time_us ...; time is "failed" for a failure.
              const micros = Number(line.split(' ')[2]);
              if (micros > 0) latencyUs.record(Math.round(micros));
            }
          rmSync(dir, { recursive: true, force: true });
          const ok = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? 0);
          return {
            connections,
            seconds,
            rps: Number(/^tps = ([0-9.]+) \(without initial connection time\)/m.exec(out)?.[1]),
            ok,
            errors: Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0),
            p50Ms: latencyUs.percentile(50) / 1000,
            p99Ms: latencyUs.percentile(99) / 1000,
            machineCpuPercent: ((after.busy - machine.busy) / (after.total - machine.total)) * 100,
          };
        },
        stop: async () => {},
      };
    },
  };
}

async function run(context: Context) {
  const want = (key: string) => selected(context, 'on-postgres', key);
  const url = postgresUrl(context);
  await resetBenchDatabase(url);
  const before = () => checkpoint(url);
  const traffic = { token: context.token, body: freshPlant };
  const baseline = (key: string, label: string, store: string, baselines: string[]) =>
    serverSide(context, {
      key,
      label,
      baselines,
      launch: () => startBaseline(context, label, 'node-http.ts', ['--store', store, '--url', url]),
      traffic,
      before,
    });
  const sides: Side[] = [];
  if (want('pgbench')) sides.push(pgbenchSide(url));
  if (want('bare-pg')) sides.push(baseline('bare-pg', 'reference: node:http + pg', 'pg', ['pgbench']));
  if (want('kysely')) sides.push(baseline('kysely', 'baseline: node:http + kysely', 'kysely', ['bare-pg']));
  // The image alone still needs the host's service beside it, at c64.
  if (want('postgres') || want('image'))
    sides.push(
      serverSide(context, {
        key: 'postgres',
        label: 'service, PostgreSQL',
        baselines: ['kysely', 'bare-pg', 'pgbench'],
        ...(want('postgres') ? {} : { levels: [64] }),
        launch: () => startService(context, 'service (PostgreSQL)', { DATABASE_URL: url }),
        traffic,
        before,
      }),
    );
  if (want('image')) sides.push(imageSide(context, url, before));
  return runGroup(context, sides);
}

export const postgresPart: Part = {
  name: 'on-postgres',
  keys: ['pgbench', 'bare-pg', 'kysely', 'postgres', 'image'],
  usesPostgres: true,
  run,
};
