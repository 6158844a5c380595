// `pnpm test`: every package's tests through turbo, then one closing line that sums them all,
// `N passed, N failed`, because neither turbo nor vitest prints a total across packages. Skipped
// tests are counted on the line before it, never as passed.
// Exits non-zero when any test failed, a package's run failed, or a package wrote no report.
// With TEST_TOTALS_FILE set, the counts of earlier runs kept in that file are added in, and this
// run's are added to it: CI runs the server legs twice, and its closing line counts both runs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeReport } from '../packages/test-support/src/test-reports.ts';

const root = join(import.meta.dirname, '..');
// The workspace's packages (pnpm-workspace.yaml): those under packages/ and apps/, and bench/.
const workspacePackages = [
  ...['packages', 'apps'].flatMap((group) => readdirSync(join(root, group)).map((name) => join(group, name))),
  'bench',
];
const packagesWithTests = workspacePackages.filter((dir) => {
  const manifest = join(root, dir, 'package.json');
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test;
});

// A report left from an earlier run must not be counted; turbo restores it when it replays a cached run.
for (const dir of packagesWithTests) rmSync(join(root, dir, 'reports'), { recursive: true, force: true });

const turbo = spawnSync('turbo', ['run', 'test', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});

let passed = 0;
let failed = 0;
let skipped = 0;
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
    if (!process.argv.slice(2).some((arg) => arg.startsWith('--filter'))) failed += 1;
    continue;
  }
  const summary = summarizeReport(JSON.parse(readFileSync(reportPath, 'utf8')), dir, join(root, dir));
  passed += summary.passed;
  failed += summary.failed;
  skipped += summary.skipped;
  for (const line of summary.lines) console.log(line);
}
const filtered = process.argv.slice(2).some((arg) => arg.startsWith('--filter'));
if (!filtered) for (const problem of problems) console.log(problem);
const ok = turbo.status === 0 && failed === 0 && (filtered || problems.length === 0);
if (turbo.status !== 0 && failed === 0) failed = 1; // turbo failed outside any test: count it.
const totalsFile = process.env.TEST_TOTALS_FILE;
if (totalsFile) {
  console.log(`this run: ${skipped} skipped, ${passed} passed, ${failed} failed`);
  // Missing or empty (as `mktemp` leaves it): this is the first run.
  const kept = existsSync(totalsFile) ? readFileSync(totalsFile, 'utf8').trim() : '';
  const earlier = kept
    ? (JSON.parse(kept) as { passed: number; failed: number; skipped: number })
    : { passed: 0, failed: 0, skipped: 0 };
  passed += earlier.passed;
  failed += earlier.failed;
  skipped += earlier.skipped;
  writeFileSync(totalsFile, JSON.stringify({ passed, failed, skipped }));
  console.log(`with the earlier runs in ${totalsFile}:`);
}
console.log(
  `${skipped} skipped${skipped > 0 ? ' (not counted as passed: each is named above, and its "DID NOT RUN" block in the output says why)' : ''}`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
