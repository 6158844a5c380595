// What the figures were measured on: they mean little without the machine and the versions.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { machineCpuSeconds } from './processes.ts';

export interface MachineInfo {
  readonly date: string;
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly postgres?: string;
  readonly pgbench?: string;
  readonly postgresSettings?: Record<string, string>;
  readonly packages: Record<string, string>;
  readonly gitCommit: string;
  /** The load average (1, 5, 15 min) when the run started. */
  readonly loadAverageAtStart: readonly number[];
  /** How busy the machine was, in % of all its cores, over one second before the run: others' work. */
  readonly backgroundCpuPercent: number;
}

function packageVersion(packageJsonPath: string): string {
  try {
    return (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function gitCommit(root: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

/** /proc/cpuinfo's "model name" (os.cpus() where there is none). */
export function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) return match[1].trim();
  } catch {
    // Not Linux.
  }
  return cpus()[0]?.model.trim() ?? 'unknown';
}

/** "6.50 6.06 3.99": the load average over 1, 5 and 15 minutes. */
export function formatLoadAverage(values: readonly number[] | number | undefined): string {
  if (values === undefined) return '-';
  return (typeof values === 'number' ? [values] : values).map((value) => value.toFixed(2)).join(' ');
}

async function backgroundCpuPercent(): Promise<number> {
  const before = machineCpuSeconds();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const after = machineCpuSeconds();
  return ((after.busy - before.busy) / (after.total - before.total)) * 100;
}

export async function describeMachine(root: string): Promise<MachineInfo> {
  const bench = join(root, 'bench', 'node_modules');
  return {
    date: new Date().toISOString(),
    cpuModel: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${process.platform} ${release()}`,
    node: process.version,
    packages: {
      autocannon: packageVersion(join(bench, 'autocannon', 'package.json')),
      koa: packageVersion(join(bench, 'koa', 'package.json')),
      '@koa/router': packageVersion(join(bench, '@koa', 'router', 'package.json')),
      pg: packageVersion(join(bench, 'pg', 'package.json')),
      'json-server': packageVersion(join(bench, 'json-server', 'package.json')),
      '@electric-sql/pglite': packageVersion(
        join(root, 'packages', 'storage-postgres', 'node_modules', '@electric-sql', 'pglite', 'package.json'),
      ),
    },
    gitCommit: gitCommit(root),
    loadAverageAtStart: loadavg(),
    backgroundCpuPercent: await backgroundCpuPercent(),
  };
}
