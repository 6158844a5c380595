import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

interface LockedPackage {
  readonly version?: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

/** npm's package-lock.json of a project: every installed package by its folder. */
function lockedPackages(projectDir: string): Readonly<Record<string, LockedPackage>> {
  const lock = JSON.parse(readFileSync(join(projectDir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  };
  return lock.packages;
}

/** The folder Node resolves `name` to from the package in `from`: its own node_modules, then upwards. */
function resolveLocked(
  packages: Readonly<Record<string, LockedPackage>>,
  from: string,
  name: string,
): string | undefined {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
  }
}

/**
 * Engines: a package promises no Node its installed dependencies (all the way down) refuse. Its
 * `engines.node` must be a subset of each of theirs.
 */
export function engineProblems(projectDir: string, name: string): string[] {
  const packages = lockedPackages(projectDir);
  const root = `node_modules/${name}`;
  const range = packages[root]?.engines?.node;
  if (range === undefined) return [`${name} has no engines.node`];
  const problems: string[] = [];
  const seen = new Set<string>([root]);
  const pending = [root];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const locked = packages[folder] ?? {};
    const needed = { ...locked.dependencies, ...locked.optionalDependencies, ...locked.peerDependencies };
    for (const dependency of Object.keys(needed)) {
      const found = resolveLocked(packages, folder, dependency);
      if (found === undefined || seen.has(found)) continue;
      seen.add(found);
      pending.push(found);
      const theirs = packages[found]?.engines?.node;
      if (theirs !== undefined && !semver.subset(range, theirs))
        problems.push(
          `${name} says node ${range}, but ${dependency}@${packages[found]?.version} (${folder === root ? 'a dependency' : `through ${folder.replace(/^.*node_modules\//, '')}`}) needs node ${theirs}`,
        );
    }
  }
  return problems;
}
