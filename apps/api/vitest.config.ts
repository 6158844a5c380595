import { workspaceTestConfig } from '../../vitest.shared.ts';

export default workspaceTestConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Every answer the tests receive is checked against the published OpenAPI document.
    setupFiles: ['test/support/validate-responses.setup.ts'],
  },
});
