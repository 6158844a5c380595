/** Whether the drills can run here; when not, a loud block says why (they are then counted as skipped). */
import { warnDidNotRun } from '@plant-store/test-support';
import { engineAnswers } from './docker.ts';

export const ENGINE = engineAnswers();

export function warnIfNoEngine(what: string): void {
  if (ENGINE) return;
  warnDidNotRun(
    what,
    'no Docker engine answers (`docker info` failed)',
    "run `pnpm docker:prepare` (as root: installs Debian's docker.io, starts dockerd, builds the stand-in images)",
  );
}
