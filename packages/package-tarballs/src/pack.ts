import { mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runOrThrow } from './run-command.ts';
import type { WorkspacePackage } from './workspace.ts';

export type Packer = 'npm' | 'pnpm';
export const PACKERS: readonly Packer[] = ['npm', 'pnpm'];

export interface PackedPackage {
  readonly name: string;
  readonly packer: Packer;
  readonly tarball: string;
  /** The tarball unpacked: its `package/` folder. */
  readonly contents: string;
  /** Every file in it, relative to `package/`, sorted. */
  readonly files: readonly string[];
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Packs a workspace package as its publisher would, with `npm pack` or `pnpm pack` in its folder (each
 * builds it first, through the package's prepack script), then unpacks the tarball to read it.
 */
export async function pack(pkg: WorkspacePackage, packer: Packer, into: string): Promise<PackedPackage> {
  const destination = join(into, packer, pkg.manifest.name.replace('/', '+'));
  mkdirSync(destination, { recursive: true });
  await runOrThrow(packer, ['pack', '--pack-destination', destination], { cwd: pkg.dir });
  const tarballs = readdirSync(destination).filter((file) => file.endsWith('.tgz'));
  if (tarballs.length !== 1)
    throw new Error(`${packer} pack of ${pkg.manifest.name} made ${tarballs.length} tarballs: ${tarballs}`);
  const tarball = join(destination, tarballs[0] ?? '');
  const unpacked = join(destination, 'unpacked');
  mkdirSync(unpacked);
  await runOrThrow('tar', ['-xzf', tarball, '-C', unpacked], { cwd: destination });
  const contents = join(unpacked, 'package');
  return { name: pkg.manifest.name, packer, tarball, contents, files: listFiles(contents) };
}
