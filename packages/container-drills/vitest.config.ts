import { workspaceTestConfig } from '../../vitest.shared.ts';

export default workspaceTestConfig({
  test: {
    // Building an image and stopping containers under load take their time; nothing here is timed.
    testTimeout: 180_000,
    hookTimeout: 600_000,
    // One file at a time: each drill loads the machine, and they share the engine.
    fileParallelism: false,
  },
});
