import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const WORKSPACE_ROOT = join(import.meta.dirname, '..', '..', '..');

/** The export condition under which the workspace runs its packages' TypeScript sources. */
export const SOURCE_CONDITION = '@plant-store/source';

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly exports?: unknown;
  readonly types?: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** The fields of a manifest that decide what its users install and load; not scripts, not devDependencies. */
export function manifestForUsers(dir: string): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  const fields = [
    'name',
    'version',
    'type',
    'main',
    'exports',
    'types',
    'bin',
    'sideEffects',
    'engines',
    'license',
  ];
  const dependencyFields = [
    'dependencies',
    'peerDependencies',
    'optionalDependencies',
    'peerDependenciesMeta',
  ];
  return Object.fromEntries([...fields, ...dependencyFields].map((field) => [field, manifest[field]]));
}

/** Every package under packages/ and apps/. */
export function workspacePackages(): WorkspacePackage[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(WORKSPACE_ROOT, group))
      .map((name) => join(WORKSPACE_ROOT, group, name))
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .map((dir) => ({ dir, manifest: readManifest(dir) })),
  );
}

/** The packages that are published: every workspace package not marked private. */
export function publishablePackages(): WorkspacePackage[] {
  return workspacePackages().filter(({ manifest }) => manifest.private !== true);
}

/** Dependencies a package's users install with it. */
export function runtimeDependencies(manifest: Manifest): Record<string, string> {
  return { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
}
