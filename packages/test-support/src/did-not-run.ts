/**
 * Writes a loud block on stderr saying that some tests did not run, and why. A leg that cannot run
 * here (no server, no browser) must never pass silently: the reason shows in the output.
 */
export function warnDidNotRun(what: string, reason: string, hint?: string): void {
  const line = '!'.repeat(100);
  process.stderr.write(
    [
      '',
      line,
      `!!! ${what} DID NOT RUN`,
      `!!! ${reason}`,
      ...(hint === undefined ? [] : [`!!! ${hint}`]),
      line,
      '',
      '',
    ].join('\n'),
  );
}
