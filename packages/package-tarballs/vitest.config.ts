import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Packing, installing from npm's cache and type-checking take a while; a cold cache longer.
    testTimeout: 60_000,
    hookTimeout: 300_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/vitest.json' },
  },
});
