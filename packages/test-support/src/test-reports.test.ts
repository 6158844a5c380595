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

  it('when tests failed, then they are counted as they are, with no extra line', () => {
    const summary = summarizeReport(
      report({ numPassedTests: 1, numFailedTests: 3, success: false, numFailedTestSuites: 1 }),
      'apps/api',
      PACKAGE,
    );
    expect(summary).toEqual({
      passed: 1,
      failed: 3,
      skipped: 0,
      lines: ['apps/api: 1 passed, 3 failed, 0 skipped'],
    });
  });
});
