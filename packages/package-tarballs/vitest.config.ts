import { workspaceTestConfig } from '../../vitest.shared.ts';

export default workspaceTestConfig({
  // Packing, installing from npm's cache and type-checking take a while; a cold cache longer.
  test: { testTimeout: 60_000, hookTimeout: 300_000 },
});
