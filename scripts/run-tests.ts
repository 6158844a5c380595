// `pnpm test`: every package's tests through turbo (with --continue: one failing package does not
// stop the others), then one closing line that sums them all, `N passed, N failed`. Skipped tests are
// counted on the line before it, never as passed. What it does is runWorkspaceTests, tested in
// packages/test-support.
// Exits non-zero when any test failed, a package's run failed, or a package wrote no report.
// With TEST_TOTALS_FILE set, the counts of earlier runs kept in that file are added in, and this
// run's are added to it: CI runs the server legs twice, and its closing line counts both runs.
// `pnpm test:quick` sets PLANT_STORE_TEST_QUICK=1: the tests leave out what needs Docker or Chromium
// (packages/test-support/src/quick-run.ts), and the closing lines say so.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runWorkspaceTests } from '../packages/test-support/src/run-tests.ts';

const root = join(import.meta.dirname, '..');
const code = runWorkspaceTests({
  root,
  args: process.argv.slice(2),
  runTurbo: (args) =>
    spawnSync('turbo', args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    }).status,
  totalsFile: process.env.TEST_TOTALS_FILE,
  quick: process.env.PLANT_STORE_TEST_QUICK === '1',
  log: (line) => console.log(line),
});
process.exit(code);
