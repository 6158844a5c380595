// The test configuration every package of the workspace shares. A package's vitest.config.ts is
// `export default workspaceTestConfig({ ...what is its own })`, so that none can miss the part
// `pnpm test` depends on: the JSON report in reports/vitest.json that scripts/run-tests.ts sums.
// Under `pnpm test:quick` it leaves out the files that need Docker or Chromium (quick-run.ts in test-support).
import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config';
import {
  isQuickRun,
  leftOutOfQuickRun,
  NEEDS_DOCKER_OR_CHROMIUM,
  warnLeftOut,
} from './packages/test-support/src/quick-run.ts';

export interface HeavyTests {
  /** Test files that need a Docker engine though not named `*.docker.test.ts`: `pnpm test:quick` leaves them out. */
  readonly needDocker?: readonly string[];
}

export function workspaceTestConfig(own: ViteUserConfig = {}, heavy: HeavyTests = {}): ViteUserConfig {
  const leftOut = isQuickRun()
    ? leftOutOfQuickRun(process.cwd(), [...NEEDS_DOCKER_OR_CHROMIUM, ...(heavy.needDocker ?? [])])
    : [];
  warnLeftOut(leftOut);
  return mergeConfig(
    defineConfig({
      // The workspace's packages are run from their TypeScript sources (see their exports).
      ssr: { resolve: { conditions: ['@plant-store/source', ...defaultServerConditions] } },
      test: {
        testTimeout: 30_000,
        hookTimeout: 60_000,
        reporters: ['default', 'json'],
        outputFile: { json: 'reports/vitest.json' },
        // A package whose every test needs Docker still writes its (empty) report.
        ...(isQuickRun() && { exclude: [...configDefaults.exclude, ...leftOut], passWithNoTests: true }),
      },
    }),
    own,
  );
}
