/** Whether the drills can run here; when not, a loud block says why (they are then counted as skipped). */
import { warnDidNotRun } from '@plant-store/test-support';
import { type ComposeTool, detectCompose } from './compose.ts';
import { engineAnswers } from './docker.ts';
import { lookUpImage, type WantedImage } from './images.ts';

export const ENGINE = engineAnswers();
/** `docker compose` (v2) when it answers, else `docker-compose` (1.29), else undefined. */
export const COMPOSE: ComposeTool | undefined = detectCompose();

const PREPARE =
  'run `pnpm docker:prepare`: it builds the stand-in images from Debian packages (docs/containers.md)';

/** A loud skip; on CI, whose `pnpm docker:prepare` made everything, a failure. */
function cannotRun(what: string, reason: string, hint: string): false {
  if (process.env.CI) throw new Error(`${what} cannot run: ${reason}; ${hint}`);
  warnDidNotRun(what, reason, hint);
  return false;
}

function warnIfNoEngine(what: string): void {
  if (ENGINE) return;
  warnDidNotRun(
    what,
    'no Docker engine answers (`docker info` failed)',
    "start Docker, or run `pnpm docker:prepare` (as root: installs Debian's docker.io, starts dockerd, builds the stand-in images)",
  );
}

/**
 * Whether `what` can run: an engine, compose if `needs.compose`, and every image (found, or pulled
 * where a registry answers: images.ts). When not, a loud block names what is missing and how to make
 * it; with CI set, anything missing but the engine fails instead.
 */
export async function drillsCanRun(
  what: string,
  needs: { readonly compose?: boolean; readonly images: readonly WantedImage[] },
): Promise<boolean> {
  if (!ENGINE) {
    warnIfNoEngine(what);
    return false;
  }
  if (needs.compose && COMPOSE === undefined) {
    return cannotRun(
      what,
      'neither `docker compose` (Compose v2) nor `docker-compose` (1.29) answers `version`',
      "install Docker's Compose plugin, or Debian's docker-compose (`pnpm docker:prepare` does, as root)",
    );
  }
  const missing: string[] = [];
  for (const wanted of needs.images) {
    const found = await lookUpImage(wanted);
    if (found.image === undefined) missing.push(found.why);
  }
  return missing.length === 0 || cannotRun(what, `images missing: ${missing.join('; ')}`, PREPARE);
}
