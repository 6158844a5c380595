import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWorkspaceTests } from './run-tests.ts';
import type { VitestJsonReport } from './test-reports.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace of packages with a test script, in a folder of its own. */
function workspace(...dirs: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-run-tests-'));
  roots.push(root);
  for (const dir of dirs) {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
  }
  mkdirSync(join(root, 'apps'), { recursive: true });
  return root;
}

function writeReport(root: string, dir: string, passed: number, failed: number): void {
  const report: VitestJsonReport = {
    testResults: [],
    numPassedTests: passed,
    numFailedTests: failed,
    numPendingTests: 0,
    numTodoTests: 0,
    numFailedTestSuites: failed > 0 ? 1 : 0,
    success: failed === 0,
  };
  mkdirSync(join(root, dir, 'reports'), { recursive: true });
  writeFileSync(join(root, dir, 'reports', 'vitest.json'), JSON.stringify(report));
}

function run(
  root: string,
  args: readonly string[],
  turbo: (args: readonly string[]) => number | null,
  quick = false,
) {
  const lines: string[] = [];
  const turboArgs: (readonly string[])[] = [];
  const code = runWorkspaceTests({
    root,
    args,
    quick,
    runTurbo: (given) => {
      turboArgs.push(given);
      return turbo(given);
    },
    log: (line) => lines.push(line),
  });
  return { code, lines, turboArgs };
}

describe('runWorkspaceTests', () => {
  it('when it runs turbo, then --continue comes before the filters and the `--` of vitest', () => {
    const root = workspace('packages/a');
    const { turboArgs } = run(root, ['--filter', '@plant-store/a', '--', 'postgres'], () => {
      writeReport(root, 'packages/a', 1, 0);
      return 0;
    });
    expect(turboArgs).toEqual([
      ['run', 'test', '--continue', '--filter', '@plant-store/a', '--', 'postgres'],
    ]);
  });

  it('when one package fails, then the others are counted too and the exit code is 1', () => {
    const root = workspace('packages/fails', 'packages/passes', 'apps/api');
    const { code, lines } = run(root, [], () => {
      // What turbo with --continue leaves: every package ran and reported, one failed.
      writeReport(root, 'packages/fails', 3, 2);
      writeReport(root, 'packages/passes', 5, 0);
      writeReport(root, 'apps/api', 7, 0);
      return 1;
    });
    expect(code).toBe(1);
    expect(lines).toContain('packages/fails: 3 passed, 2 failed, 0 skipped');
    expect(lines).toContain('packages/passes: 5 passed, 0 failed, 0 skipped');
    expect(lines).toContain('apps/api: 7 passed, 0 failed, 0 skipped');
    expect(lines.at(-1)).toBe('15 passed, 2 failed');
  });

  it('when a package wrote no report, then it counts as one failure, named', () => {
    const root = workspace('packages/crashed', 'packages/passes');
    const { code, lines } = run(root, [], () => {
      writeReport(root, 'packages/passes', 4, 0);
      return 1;
    });
    expect(code).toBe(1);
    expect(lines.some((line) => line.startsWith('packages/crashed: no reports/vitest.json'))).toBe(true);
    expect(lines.at(-1)).toBe('4 passed, 1 failed');
  });

  it('when turbo fails outside any test, then that counts as one failure', () => {
    const root = workspace('packages/a');
    const { code, lines } = run(root, [], () => {
      writeReport(root, 'packages/a', 2, 0);
      return 1;
    });
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('2 passed, 1 failed');
  });

  it('when a report is left from an earlier run, then it is removed before turbo runs', () => {
    const root = workspace('packages/a');
    writeReport(root, 'packages/a', 9, 0);
    const { code, lines } = run(root, [], () => 0);
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('0 passed, 1 failed');
  });

  it('when it is the run of pnpm test:quick, then the lines before the closing one say that Docker and Chromium tests did not run', () => {
    const root = workspace('packages/a');
    const report = () => {
      writeReport(root, 'packages/a', 3, 0);
      return 0;
    };
    const quick = run(root, [], report, true);
    expect(quick.code).toBe(0);
    expect(quick.lines.at(-1)).toBe('3 passed, 0 failed');
    expect(quick.lines.slice(-3, -2)[0]).toMatch(
      /^pnpm test:quick: the tests that need Docker or Chromium did not run/,
    );
    expect(run(root, [], report).lines.join('\n')).not.toContain('test:quick');
  });

  it('when a totals file holds earlier counts, then they are added in and the sum is kept', () => {
    const root = workspace('packages/a');
    const totalsFile = join(root, 'totals.json');
    writeFileSync(totalsFile, JSON.stringify({ passed: 10, failed: 1, skipped: 2 }));
    const lines: string[] = [];
    const code = runWorkspaceTests({
      root,
      args: [],
      runTurbo: () => {
        writeReport(root, 'packages/a', 3, 0);
        return 0;
      },
      totalsFile,
      log: (line) => lines.push(line),
    });
    expect(code).toBe(0);
    expect(lines).toContain('this run: 0 skipped, 3 passed, 0 failed');
    expect(lines.at(-1)).toBe('13 passed, 1 failed');
    expect(JSON.parse(readFileSync(totalsFile, 'utf8'))).toEqual({ passed: 13, failed: 1, skipped: 2 });
  });
});
