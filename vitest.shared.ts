// The test configuration every package of the workspace shares. A package's vitest.config.ts is
// `export default workspaceTestConfig({ ...what is its own })`, so that none can miss the part
// `pnpm test` depends on: the JSON report in reports/vitest.json that scripts/run-tests.ts sums.
import { defaultServerConditions } from 'vite';
import { defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config';

export function workspaceTestConfig(own: ViteUserConfig = {}): ViteUserConfig {
  return mergeConfig(
    defineConfig({
      // The workspace's packages are run from their TypeScript sources (see their exports).
      ssr: { resolve: { conditions: ['@plant-store/source', ...defaultServerConditions] } },
      test: {
        testTimeout: 30_000,
        hookTimeout: 60_000,
        reporters: ['default', 'json'],
        outputFile: { json: 'reports/vitest.json' },
      },
    }),
    own,
  );
}
