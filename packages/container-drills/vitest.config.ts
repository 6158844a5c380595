import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['@plant-store/source', ...defaultServerConditions] } },
  test: {
    // Building an image and stopping containers under load take their time; nothing here is timed.
    testTimeout: 180_000,
    hookTimeout: 600_000,
    // One file at a time: each drill loads the machine, and they share the engine.
    fileParallelism: false,
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/vitest.json' },
  },
});
