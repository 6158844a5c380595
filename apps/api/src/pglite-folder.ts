import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of `pglite:` alone. */
export const DEFAULT_PGLITE_DIR = './data';

// PGlite reads these prefixes of its dataDir as stores that are no folder on disk (its fs/ choice).
const PGLITE_STORES: Readonly<Record<string, string>> = {
  'memory:': 'PGlite would keep the plants in memory and lose them at exit',
  'idb:': "PGlite's store in a browser (IndexedDB)",
  'opfs-ahp:': "PGlite's store in a browser (OPFS)",
  'memfs2opfs:': "PGlite's store in a browser (OPFS)",
};

const FOLDERS = 'pglite: takes a folder, as pglite:/srv/plants, pglite:./data or pglite:file:///srv/plants';

/** The absolute path a `file://` URL names, read as any URL is; undefined for a host other than localhost, an escaped slash, or no `//`. */
function fileUrlPath(url: string): string | undefined {
  if (!/^file:\/\//i.test(url)) return undefined;
  try {
    return resolve(fileURLToPath(url));
  } catch {
    return undefined;
  }
}

/**
 * The one absolute folder a `pglite:` address names, decided here and given to PGlite and the folder's
 * lock alike, so that no prefix is read one way by one and another way by the other: a path (relative
 * to the working directory), or a `file://` URL of an absolute path. Any other scheme is refused
 * (why follows "DATABASE_URL"): PGlite's own (memory://, idb://, …) keep nothing on disk.
 */
export function pgliteFolder(address: string): { readonly dataDir: string } | { readonly problem: string } {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(address)?.[0].toLowerCase();
  if (scheme === undefined) return { dataDir: resolve(address || DEFAULT_PGLITE_DIR) };
  if (scheme === 'file:') {
    const folder = fileUrlPath(address);
    if (folder !== undefined) return { dataDir: folder };
    return {
      problem: `pglite:file: must be the URL of an absolute path on this machine, as pglite:file:///srv/plants (or the path alone: pglite:/srv/plants)`,
    };
  }
  const named = address.slice(scheme.length).startsWith('//') ? `${scheme}//` : scheme;
  const why = PGLITE_STORES[scheme];
  // A folder whose name looks like a scheme is still a folder, written so that it does not.
  const folders = why === undefined ? `${FOLDERS}; one named ${named}… as pglite:./${named}…` : FOLDERS;
  return {
    problem: `pglite:${named} is not a folder on disk${why === undefined ? '' : ` (${why})`}: ${folders}; for a throwaway run, DATABASE_URL=memory:`,
  };
}
