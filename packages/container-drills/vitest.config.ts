import { workspaceTestConfig } from '../../vitest.shared.ts';

export default workspaceTestConfig(
  {
    test: {
      // Building an image and stopping containers under load take their time; nothing here is timed.
      testTimeout: 180_000,
      hookTimeout: 600_000,
      // One file at a time: each drill loads the machine, and they share the engine.
      fileParallelism: false,
    },
  },
  {
    // The drills, each against a Docker engine.
    needDocker: [
      'test/api-image.test.ts',
      'test/compose.test.ts',
      'test/ha.test.ts',
      'test/pgbouncer.test.ts',
      'test/replicas.test.ts',
    ],
  },
);
