/** The Docker client the drills run, and where they run it. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's client where it is installed (the newer one some machines have first on PATH cannot build). */
export const DOCKER =
  process.env.PLANT_STORE_DOCKER ?? (existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker');
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
