import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * A Node.js binary of the given major version on this machine: the first on PATH, else a system one
 * (Debian's /usr/bin/node). The workspace runs on its own Node 24, which pnpm puts first on PATH.
 */
export function findNode(major: number): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')),
    '/usr/local/bin/node',
    '/usr/bin/node',
  ];
  for (const candidate of new Set(candidates)) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    if (version.startsWith(`v${major}.`)) return candidate;
  }
  return undefined;
}
