// What `pnpm test` (scripts/run-tests.ts) reads from each package's vitest JSON report, so that
// its closing `N passed, N failed` line and the lines before it are tested like any other code.

/** The parts of vitest's JSON report (`reporters: ['json']`) the summary reads. */
export interface VitestJsonReport {
  readonly testResults: readonly {
    readonly name: string;
    readonly assertionResults: readonly {
      readonly ancestorTitles: readonly string[];
      readonly title: string;
      readonly status: string;
    }[];
  }[];
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly numTodoTests: number;
  readonly numFailedTestSuites: number;
  readonly success: boolean;
}

export interface PackageSummary {
  readonly passed: number;
  /** Failed tests, plus one for each test file that failed to run without a failed test. */
  readonly failed: number;
  readonly skipped: number;
  /** The lines to print: the counts, then each group of skipped tests by name. */
  readonly lines: readonly string[];
}

const SKIPPED = new Set(['skipped', 'pending', 'todo']);

/** Each group of skipped tests as `file: describe title (N tests)`: a test that did not run is named, never silent. */
function skippedGroups(report: VitestJsonReport, packageDir: string): string[] {
  const groups = new Map<string, number>();
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      if (!SKIPPED.has(test.status)) continue;
      const where = `${file.name.replace(`${packageDir}/`, '')}: ${test.ancestorTitles[0] ?? test.title}`;
      groups.set(where, (groups.get(where) ?? 0) + 1);
    }
  }
  return [...groups].map(([where, count]) => `  skipped: ${where} (${count} test${count === 1 ? '' : 's'})`);
}

/** One package's report, as counts and lines; `dir` names it, `packageDir` is its absolute path. */
export function summarizeReport(report: VitestJsonReport, dir: string, packageDir: string): PackageSummary {
  const skipped = report.numPendingTests + report.numTodoTests;
  const lines = [
    `${dir}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
    ...skippedGroups(report, packageDir),
  ];
  let failed = report.numFailedTests;
  if (!report.success && failed === 0) {
    lines.push(`${dir}: ${report.numFailedTestSuites} test file(s) failed to run`);
    failed = Math.max(1, report.numFailedTestSuites);
  }
  return { passed: report.numPassedTests, failed, skipped, lines };
}
