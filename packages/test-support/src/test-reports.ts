// What `pnpm test` (scripts/run-tests.ts) reads from each package's vitest JSON report, so that
// its closing `N passed, N failed` line and the lines before it are tested like any other code.

/** The parts of vitest's JSON report (`reporters: ['json']`) the summary reads. */
export interface VitestJsonReport {
  readonly testResults: readonly {
    readonly name: string;
    /** 'failed' also when the file failed outside any test (an import, a hook); `message` then says why. */
    readonly status?: string;
    readonly message?: string;
    readonly assertionResults: readonly {
      readonly ancestorTitles: readonly string[];
      readonly title: string;
      readonly status: string;
      readonly failureMessages?: readonly string[] | null;
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
  /** The lines to print: the counts, each failed test by name with its error's first line, then each group of skipped tests. */
  readonly lines: readonly string[];
}

const SKIPPED = new Set(['skipped', 'pending', 'todo']);

/** A test file's path as its package sees it, as the lines name it. */
const inPackage = (fileName: string, packageDir: string): string => fileName.replace(`${packageDir}/`, '');

/** Each group of skipped tests as `file: describe title (N tests)`: a test that did not run is named, never silent. */
function skippedGroups(report: VitestJsonReport, packageDir: string): string[] {
  const groups = new Map<string, number>();
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      if (!SKIPPED.has(test.status)) continue;
      const where = `${inPackage(file.name, packageDir)}: ${test.ancestorTitles[0] ?? test.title}`;
      groups.set(where, (groups.get(where) ?? 0) + 1);
    }
  }
  return [...groups].map(([where, count]) => `  skipped: ${where} (${count} test${count === 1 ? '' : 's'})`);
}

/** The first line of an error that says something, cut to one screen line: the tail CI keeps must name the cause. */
function firstLine(message: string | null | undefined): string {
  const line = (message ?? '').split('\n').find((text) => text.trim() !== '') ?? '(no message)';
  const trimmed = line.trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 199)}…` : trimmed;
}

/**
 * Each failed test as `file > describe > title: error`, and each file that failed outside its tests:
 * printed with the counts at the end of the run, because a long run's output is often kept only in
 * part, its tail.
 */
function failures(report: VitestJsonReport, packageDir: string): string[] {
  const lines: string[] = [];
  for (const file of report.testResults) {
    const where = inPackage(file.name, packageDir);
    const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      const name = [where, ...test.ancestorTitles, test.title].join(' > ');
      lines.push(`  failed: ${name}: ${firstLine(test.failureMessages?.[0])}`);
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      lines.push(`  failed: ${where} (the file, outside its tests): ${firstLine(file.message)}`);
    }
  }
  return lines;
}

/** One package's report, as counts and lines; `dir` names it, `packageDir` is its absolute path. */
export function summarizeReport(report: VitestJsonReport, dir: string, packageDir: string): PackageSummary {
  const skipped = report.numPendingTests + report.numTodoTests;
  const lines = [
    `${dir}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
    ...failures(report, packageDir),
    ...skippedGroups(report, packageDir),
  ];
  let failed = report.numFailedTests;
  if (!report.success && failed === 0) {
    lines.push(`${dir}: ${report.numFailedTestSuites} test file(s) failed to run`);
    failed = Math.max(1, report.numFailedTestSuites);
  }
  return { passed: report.numPassedTests, failed, skipped, lines };
}
