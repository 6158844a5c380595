/**
 * A PostgreSQL cluster of a test's own (initdb + pg_ctl in a temporary folder, on a free port of
 * 127.0.0.1), that the test may stop, kill, freeze and start again without touching any shared
 * server. fsync is off: it is thrown away, and an operating system crash is not part of any drill.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@plant-store/test-support';

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** pg_ctl start; resolves once it accepts connections. */
  start(): Promise<void>;
  /** pg_ctl stop: 'fast' ends sessions cleanly, 'immediate' is a crash (recovery runs at the next start). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** SIGSTOP to the server and every backend: connections open, nothing answers (a hung host). */
  freeze(): void;
  /** SIGCONT to what freeze() stopped. */
  thaw(): void;
  /** Stops it whatever its state and removes its folder. */
  destroy(): Promise<void>;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

function findBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** initdb refuses root: as root, the cluster runs as the `postgres` OS user. */
function findRunAs(): RunAs | string {
  if (process.getuid?.() !== 0) return {};
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return 'running as root, and there is no `postgres` OS user to run the cluster as';
  }
}

/** Why no throwaway cluster can be made here, or undefined when one can. */
export function whyNoThrowawayPostgres(): string | undefined {
  if (process.platform !== 'linux') return `PostgreSQL drills need Linux, not ${process.platform}`;
  if (findBinDir() === undefined)
    return 'no PostgreSQL binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or PG_BIN_DIR';
  const runAs = findRunAs();
  return typeof runAs === 'string' ? runAs : undefined;
}

function run(command: string, args: readonly string[], runAs: RunAs, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...runAs,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' },
      cwd: '/',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output}`));
    });
  });
}

/** The server process and its children (backends, checkpointer, WAL writer, ...), from /proc. */
function clusterPids(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command may hold spaces and parentheses: the fields after the last ')' are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Makes and starts a new cluster. Throws when whyNoThrowawayPostgres() has a reason. */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const reason = whyNoThrowawayPostgres();
  if (reason !== undefined) throw new Error(reason);
  const bin = findBinDir() as string;
  const runAs = findRunAs() as RunAs;
  const dataDir = await mkdtemp(join(tmpdir(), 'plant-store-pg-'));
  if (runAs.uid !== undefined && runAs.gid !== undefined) await chown(dataDir, runAs.uid, runAs.gid);
  const port = await freePort();

  await run(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    runAs,
  );
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-k ${dataDir}`,
    '-c fsync=off',
    '-c max_connections=50',
  ].join(' ');
  const pgCtl = (...args: string[]): Promise<string> =>
    run(join(bin, 'pg_ctl'), ['-D', dataDir, ...args], runAs);

  let frozen: number[] = [];
  const thaw = (): void => {
    for (const pid of frozen.splice(0)) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
  };

  const cluster: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      await pgCtl('-l', join(dataDir, 'server.log'), '-o', serverOptions, '-w', '-t', '60', 'start');
    },
    stop: async (mode) => {
      await pgCtl('-m', mode, '-w', '-t', '60', 'stop');
    },
    freeze: () => {
      frozen = clusterPids(dataDir);
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw,
    destroy: async () => {
      thaw();
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => '');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
