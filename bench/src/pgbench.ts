// Baseline (c): pgbench inserting one row per transaction, the database's own ceiling on this
// machine. Prepared statements, the cheapest way a client can send it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import type { LoadResult } from './load.ts';
import { machineCpuSeconds, track } from './processes.ts';
import { makeTempDir } from './temp-dirs.ts';

const SCRIPT = `\\set id random(1, 9223372036854775806)
INSERT INTO pgbench_plants (id, name, tag) VALUES (:id, 'Monstera deliciosa', 'aroid') ON CONFLICT DO NOTHING;
`;

export async function pgbenchVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await run('pgbench', ['--version'], 10_000);
    return stdout.trim();
  } catch {
    return undefined;
  }
}

function run(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}):\n${stderr}${stdout}`));
    });
  });
}

export interface PgbenchResult extends LoadResult {
  readonly machineCpuPercent: number;
}

/** Runs the INSERT script at `connections` clients for `durationSeconds` against the pgbench_plants table. */
export async function runPgbench(
  url: string,
  connections: number,
  durationSeconds: number,
): Promise<PgbenchResult> {
  const dir = makeTempDir('pgbench');
  try {
    const script = join(dir, 'insert.sql');
    writeFileSync(script, SCRIPT);
    const threads = Math.min(connections, 2);
    const machineBefore = machineCpuSeconds();
    const { stdout } = await run(
      'pgbench',
      [
        '-n',
        '-M',
        'prepared',
        '-f',
        script,
        '-c',
        String(connections),
        '-j',
        String(threads),
        '-T',
        String(durationSeconds),
        // Every transaction's latency, to read p50 and p99 from (pgbench prints only the mean).
        '-l',
        `--log-prefix=${join(dir, 'tx')}`,
        url,
      ],
      (durationSeconds + 60) * 1000,
    );
    const machineAfter = machineCpuSeconds();
    const tps = Number(/^tps = ([0-9.]+) \(without initial connection time\)/m.exec(stdout)?.[1]);
    const processed = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? 0);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);

    const latencyUs = createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 });
    for (const file of readdirSync(dir).filter((name) => name.startsWith('tx.'))) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        // client_id transaction_no time_us script_no time_epoch time_us; time is "failed" for a failure.
        const micros = Number(line.split(' ')[2]);
        if (micros > 0) latencyUs.record(Math.round(micros));
      }
    }
    return {
      connections,
      durationSeconds,
      requestsPerSecond: tps,
      ok: processed,
      non2xx: failed,
      socketErrors: 0,
      p50Ms: latencyUs.percentile(50) / 1000,
      p99Ms: latencyUs.percentile(99) / 1000,
      maxMs: latencyUs.max / 1000,
      loadGeneratorCpuPercent: Number.NaN,
      machineCpuPercent:
        ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
