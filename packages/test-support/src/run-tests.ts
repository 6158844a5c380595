// `pnpm test` (scripts/run-tests.ts): every package's tests through turbo, then one closing line that
// sums them all, `N passed, N failed`, because neither turbo nor vitest prints a total across
// packages. Here, with turbo and the output given, so that the script is tested like other code.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeReport, type VitestJsonReport } from './test-reports.ts';

export interface RunTestsOptions {
  /** The workspace's root: its packages are under packages/ and apps/, and bench/. */
  readonly root: string;
  /** What `pnpm test` was given: turbo's filters, then `--` and vitest's arguments. */
  readonly args: readonly string[];
  /** Runs turbo with these arguments in the root; its exit status (null when it was killed). */
  readonly runTurbo: (args: readonly string[]) => number | null;
  /** Where the counts of earlier runs are kept and this run's are added (CI's TEST_TOTALS_FILE). */
  readonly totalsFile?: string | undefined;
  /** `pnpm test:quick`'s run: the tests that need Docker or Chromium were left out, which the end says. */
  readonly quick?: boolean;
  readonly log: (line: string) => void;
}

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * Runs every package's tests and prints the counts; the exit code: non-zero when any test failed,
 * a package's run failed, or a package wrote no report.
 */
export function runWorkspaceTests({ root, args, runTurbo, totalsFile, quick, log }: RunTestsOptions): number {
  // The workspace's packages (pnpm-workspace.yaml): those under packages/ and apps/, and bench/.
  const workspacePackages = [
    ...['packages', 'apps'].flatMap((group) =>
      existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => join(group, name)) : [],
    ),
    'bench',
  ];
  const packagesWithTests = workspacePackages.filter((dir) => {
    const manifest = join(root, dir, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test;
  });

  // A report left from an earlier run must not be counted; turbo restores it when it replays a cached run.
  for (const dir of packagesWithTests) rmSync(join(root, dir, 'reports'), { recursive: true, force: true });

  // --continue: a package whose tests fail does not stop the others, so one failure cannot hide
  // another; each still writes its report and is counted. Before the caller's `--`, which is vitest's.
  const turboStatus = runTurbo(['run', 'test', '--continue', ...args]);

  const filtered = args.some((arg) => arg.startsWith('--filter'));
  const totals: Totals = { passed: 0, failed: 0, skipped: 0 };
  const problems: string[] = [];
  for (const dir of packagesWithTests) {
    const reportPath = join(root, dir, 'reports', 'vitest.json');
    if (!existsSync(reportPath)) {
      // Filtered out by the caller (`pnpm test --filter ...`), or crashed before reporting.
      problems.push(
        `${dir}: no reports/vitest.json, so its tests count as not run (one failure): either its run ` +
          'crashed before reporting (see its output above), or its vitest.config.ts does not come from ' +
          "vitest.shared.ts's workspaceTestConfig(), which writes that report",
      );
      if (!filtered) totals.failed += 1;
      continue;
    }
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestJsonReport;
    const summary = summarizeReport(report, dir, join(root, dir));
    totals.passed += summary.passed;
    totals.failed += summary.failed;
    totals.skipped += summary.skipped;
    for (const line of summary.lines) log(line);
  }
  if (!filtered) for (const problem of problems) log(problem);
  const ok = turboStatus === 0 && totals.failed === 0 && (filtered || problems.length === 0);
  if (turboStatus !== 0 && totals.failed === 0) totals.failed = 1; // turbo failed outside any test: count it.
  if (totalsFile) {
    log(`this run: ${totals.skipped} skipped, ${totals.passed} passed, ${totals.failed} failed`);
    // Missing or empty (as `mktemp` leaves it): this is the first run.
    const kept = existsSync(totalsFile) ? readFileSync(totalsFile, 'utf8').trim() : '';
    const earlier: Totals = kept ? JSON.parse(kept) : { passed: 0, failed: 0, skipped: 0 };
    totals.passed += earlier.passed;
    totals.failed += earlier.failed;
    totals.skipped += earlier.skipped;
    writeFileSync(totalsFile, JSON.stringify(totals));
    log(`with the earlier runs in ${totalsFile}:`);
  }
  // Beside the closing line, which a log kept only in part still shows: a quick pass is not a full one.
  if (quick) {
    log(
      'pnpm test:quick: the tests that need Docker or Chromium did not run (each "DID NOT RUN" block above names ' +
        'them); `pnpm test` runs everything',
    );
  }
  log(
    `${totals.skipped} skipped${totals.skipped > 0 ? ' (not counted as passed: each is named above, and its "DID NOT RUN" block in the output says why)' : ''}`,
  );
  log(`${totals.passed} passed, ${totals.failed} failed`);
  return ok ? 0 : 1;
}
