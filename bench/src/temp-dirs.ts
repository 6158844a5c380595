// Scratch folders (PGlite's data, json-server's file, pgbench's logs), all removed when the bench exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tempDirs = new Set<string>();

export function makeTempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `plant-store-bench-${name}-`));
  tempDirs.add(dir);
  return dir;
}

/** Synchronous, so that it can run in an 'exit' handler. */
export function removeTempDirs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
