import { describe, expect, it } from 'vitest';
import { summarizeReport, type VitestJsonReport } from './test-reports.ts';

const PACKAGE = '/repo/apps/api';

function report(overrides: Partial<VitestJsonReport>): VitestJsonReport {
  return {
    testResults: [],
    numPassedTests: 0,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    numFailedTestSuites: 0,
    success: true,
    ...overrides,
  };
}

describe('summarizeReport', () => {
  it('when tests were skipped, then each group is named with its file, its describe title and its count', () => {
    const summary = summarizeReport(
      report({
        numPassedTests: 2,
        numPendingTests: 3,
        testResults: [
          {
            name: `${PACKAGE}/test/contract-copies.test.ts`,
            assertionResults: [
              {
                ancestorTitles: ['the copies (not compared: no shared folder)'],
                title: 'SPEC.md',
                status: 'skipped',
              },
              {
                ancestorTitles: ['the copies (not compared: no shared folder)'],
                title: 'DESIGN.md',
                status: 'skipped',
              },
              { ancestorTitles: ['other'], title: 'runs', status: 'passed' },
            ],
          },
          {
            name: `${PACKAGE}/test/browser.test.ts`,
            assertionResults: [
              { ancestorTitles: [], title: 'a lone test', status: 'pending' },
              { ancestorTitles: [], title: 'another', status: 'passed' },
            ],
          },
        ],
      }),
      'apps/api',
      PACKAGE,
    );
    expect(summary).toEqual({
      passed: 2,
      failed: 0,
      skipped: 3,
      lines: [
        'apps/api: 2 passed, 0 failed, 3 skipped',
        '  skipped: test/contract-copies.test.ts: the copies (not compared: no shared folder) (2 tests)',
        '  skipped: test/browser.test.ts: a lone test (1 test)',
      ],
    });
  });

  it('when a test file failed to run without any failed test, then it counts as failed and says so', () => {
    const summary = summarizeReport(
      report({ numPassedTests: 5, success: false, numFailedTestSuites: 2 }),
      'apps/api',
      PACKAGE,
    );
    expect(summary.failed).toBe(2);
    expect(summary.lines).toContain('apps/api: 2 test file(s) failed to run');
  });

  it('when tests failed, then each is counted and named with the first line of its error', () => {
    const summary = summarizeReport(
      report({
        numPassedTests: 1,
        numFailedTests: 2,
        success: false,
        numFailedTestSuites: 1,
        testResults: [
          {
            name: `${PACKAGE}/test/ha.test.ts`,
            status: 'failed',
            message: '',
            assertionResults: [
              {
                ancestorTitles: ['PostgreSQL under Patroni'],
                title: 'docker kill of the leader',
                status: 'failed',
                failureMessages: ['\nTestTimeoutError: Test timed out in 180000ms.\n    at ha.test.ts:258:3'],
              },
              { ancestorTitles: [], title: 'no message', status: 'failed', failureMessages: null },
              { ancestorTitles: [], title: 'passes', status: 'passed', failureMessages: [] },
            ],
          },
        ],
      }),
      'apps/api',
      PACKAGE,
    );
    expect(summary).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      lines: [
        'apps/api: 1 passed, 2 failed, 0 skipped',
        '  failed: test/ha.test.ts > PostgreSQL under Patroni > docker kill of the leader: TestTimeoutError: Test timed out in 180000ms.',
        '  failed: test/ha.test.ts > no message: (no message)',
      ],
    });
  });

  it('when a file failed outside its tests, then it is named with its error, its long line cut', () => {
    const summary = summarizeReport(
      report({
        success: false,
        numFailedTestSuites: 1,
        testResults: [
          {
            name: `${PACKAGE}/test/broken.test.ts`,
            status: 'failed',
            message: `Error: Hook timed out in 60000ms ${'x'.repeat(300)}`,
            assertionResults: [],
          },
        ],
      }),
      'apps/api',
      PACKAGE,
    );
    const named = summary.lines.find((line) => line.startsWith('  failed: test/broken.test.ts'));
    expect(named).toMatch(
      /^ {2}failed: test\/broken\.test\.ts \(the file, outside its tests\): Error: Hook timed out in 60000ms x+…$/,
    );
    expect(named?.length).toBeLessThan(280);
    expect(summary.failed).toBe(1);
  });
});
