/**
 * `pnpm test:quick` (PLANT_STORE_TEST_QUICK=1): every test but those that need a Docker engine or
 * Chromium, which say loudly that they did not run. Whole files are left out by their names (below, and
 * a package's own list in its vitest.config.ts); inside other files, provideTestPostgres starts no
 * container, so a PostgreSQL server leg runs only against TEST_DATABASE_URL.
 */
import { globSync } from 'node:fs';
import { warnDidNotRun } from './did-not-run.ts';

/** Whether this is `pnpm test:quick`'s run. */
export function isQuickRun(): boolean {
  return process.env.PLANT_STORE_TEST_QUICK === '1';
}

/** The test files that need a Docker engine or Chromium, named so wherever they are. */
export const NEEDS_DOCKER_OR_CHROMIUM: readonly string[] = ['**/*.docker.test.ts', '**/*.browser.test.ts'];

/** The files of the package in `root` that `patterns` name: those a quick run leaves out. */
export function leftOutOfQuickRun(root: string, patterns: readonly string[]): string[] {
  return globSync([...patterns], {
    cwd: root,
    exclude: (path) => String(path).includes('node_modules'),
  }).sort();
}

/** The loud block of a package whose files a quick run leaves out (none, no block). */
export function warnLeftOut(files: readonly string[]): void {
  if (files.length === 0) return;
  warnDidNotRun(
    `${files.length} test file${files.length === 1 ? '' : 's'} that need${files.length === 1 ? 's' : ''} Docker or Chromium`,
    `pnpm test:quick leaves out ${files.join(', ')}`,
    '`pnpm test` runs them',
  );
}
