// What a published tarball must be, as lists of problems (empty: nothing wrong), so that a failing test
// names every file and field at fault at once.
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import type { PackedPackage } from './pack.ts';
import type { TypeScript5 } from './typescript-5.ts';
import {
  type Manifest,
  readManifest,
  runtimeDependencies,
  SOURCE_CONDITION,
  WORKSPACE_ROOT,
} from './workspace.ts';

const TOP_LEVEL_FILES = new Set(['package.json', 'README.md', 'LICENSE']);
const BUILT = /^dist\/.+\.(js|js\.map|d\.ts)$/;
const SOURCE = /^src\/.+\.ts$/;
const TEST = /(^|\/)(test|tests|__tests__)\/|\.(test|spec)\.|(^|\/)vitest\.config\./;
const CODE = /\.(js|mjs|cjs|ts|mts|cts)$/;

/** Files: the build, its sources, README and LICENSE, and nothing else; no test; every source built. */
export function fileProblems(packed: PackedPackage): string[] {
  const problems: string[] = [];
  const files = new Set(packed.files);
  for (const file of TOP_LEVEL_FILES) if (!files.has(file)) problems.push(`${file} is missing`);
  for (const file of packed.files) {
    if (TEST.test(file)) problems.push(`${file} is a test`);
    else if (!TOP_LEVEL_FILES.has(file) && !BUILT.test(file) && !SOURCE.test(file))
      problems.push(`${file} is neither the build, its sources, README nor LICENSE`);
  }
  for (const file of packed.files.filter((name) => SOURCE.test(name) && !TEST.test(name))) {
    const built = file.replace(/^src\//, 'dist/').replace(/\.ts$/, '');
    for (const output of [`${built}.js`, `${built}.d.ts`])
      if (!files.has(output)) problems.push(`${file} has no ${output}: the build is incomplete`);
  }
  const license = join(packed.contents, 'LICENSE');
  if (
    existsSync(license) &&
    readFileSync(license, 'utf8') !== readFileSync(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8')
  )
    problems.push("LICENSE is not the repository's");
  return problems;
}

/** Each condition's target, for `exports` written as conditions (possibly nested) or as one path. */
function exportTargets(value: unknown, conditions: readonly string[] = []): [string[], unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [[[...conditions], value]];
  return Object.entries(value).flatMap(([key, target]) => exportTargets(target, [...conditions, key]));
}

/**
 * Manifest: every export reaches built JavaScript and declarations in the tarball (the workspace's source
 * condition aside), and every dependency is a version range any package manager can install.
 */
export function manifestProblems(packed: PackedPackage): string[] {
  const manifest = readManifest(packed.contents);
  const files = new Set(packed.files);
  const problems: string[] = [];
  if (typeof manifest.exports !== 'object' || manifest.exports === null) return ['no exports map'];
  for (const [subpath, entry] of Object.entries(manifest.exports)) {
    const targets = exportTargets(entry);
    const where = (conditions: string[]) =>
      `exports["${subpath}"]${conditions.map((c) => `["${c}"]`).join('')}`;
    for (const [conditions, target] of targets) {
      const file = typeof target === 'string' ? target.replace(/^\.\//, '') : undefined;
      if (file === undefined || !files.has(file)) {
        problems.push(`${where(conditions)} is ${JSON.stringify(target)}, not a file of the tarball`);
        continue;
      }
      if (conditions.includes(SOURCE_CONDITION)) continue;
      const expected = conditions.includes('types') ? /^dist\/.+\.d\.ts$/ : /^dist\/.+\.js$/;
      if (!expected.test(file)) problems.push(`${where(conditions)} is ${file}, not the build`);
    }
    const usable = targets.filter(([conditions]) => !conditions.includes(SOURCE_CONDITION));
    if (!usable.some(([conditions]) => conditions.includes('types')))
      problems.push(`exports["${subpath}"] has no types outside the ${SOURCE_CONDITION} condition`);
    if (!usable.some(([conditions]) => conditions.includes('default') || conditions.includes('import')))
      problems.push(`exports["${subpath}"] has no JavaScript outside the ${SOURCE_CONDITION} condition`);
  }
  if (manifest.types !== undefined && !files.has(manifest.types.replace(/^\.\//, '')))
    problems.push(`types is ${manifest.types}, not a file of the tarball`);
  if (manifest.engines?.node === undefined) problems.push('engines.node is not set');
  for (const [name, range] of Object.entries(runtimeDependencies(manifest)))
    if (/^(workspace|link|file|portal|catalog):/.test(range))
      problems.push(`dependency ${name} is "${range}", which only a workspace can resolve`);
  return problems;
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/**
 * Imports: every code file of the tarball imports only Node's built-ins, its own files, and the packages
 * its users install with it; never a devDependency, which its users do not have.
 */
export function importProblems(packed: PackedPackage, typescript: TypeScript5): string[] {
  const manifest: Manifest = readManifest(packed.contents);
  const installed = new Set([manifest.name, ...Object.keys(runtimeDependencies(manifest))]);
  const problems: string[] = [];
  for (const file of packed.files.filter((name) => CODE.test(name))) {
    const { modules, typeReferences } = typescript.importsOf(
      readFileSync(join(packed.contents, file), 'utf8'),
    );
    for (const specifier of modules) {
      if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
      const name = packageNameOf(specifier);
      if (!installed.has(name))
        problems.push(
          `${file} imports ${specifier}, ${manifest.devDependencies?.[name] ? 'a devDependency' : 'not a dependency'}`,
        );
    }
    for (const reference of typeReferences)
      if (reference !== 'node' && !installed.has(reference))
        problems.push(`${file} references the types ${reference}, not a dependency`);
  }
  return problems;
}
