import { cpSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * PGlite data folders for a test file's tests, each a database of its own without an initdb of its
 * own: PGlite's initdb (in WebAssembly: seconds on a quiet machine, tens of seconds on a loaded one)
 * runs once, into a template folder, and each folder handed out is a copy of it. A copy holds the
 * empty cluster a fresh PGlite would make: whatever a test's storage makes in it (its migrations,
 * pg-boss's schema) each test still makes, and no test sees another's.
 */
export interface PgliteDataFolders {
  /** A folder of its own holding a copy of the template, made by the first call. */
  next(): Promise<string>;
  /** Removes the template and every copy (a file's afterAll, once the storages on them are closed). */
  cleanup(): Promise<void>;
}

export function pgliteDataFolders(): PgliteDataFolders {
  let made: Promise<string> | undefined;
  let copies = 0;
  return {
    async next() {
      made ??= makeTemplate();
      const root = await made;
      copies += 1;
      const folder = join(root, `copy-${copies}`);
      // The synchronous copy is Node's native one; fs.promises.cp walks PGDATA's thousand files in
      // JavaScript, several times slower.
      cpSync(join(root, 'template'), folder, { recursive: true });
      return folder;
    },
    async cleanup() {
      const root = await made?.catch(() => undefined);
      if (root !== undefined) await rm(root, { recursive: true, force: true });
    },
  };
}

async function makeTemplate(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'plant-store-pglite-'));
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create({ dataDir: join(root, 'template') });
  await pglite.close();
  return root;
}
