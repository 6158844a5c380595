import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The data folder cannot be used as it is, for a reason its operator must fix: it is a file, it cannot
 * be made or written, its lock cannot be taken there. The message names the folder and the reason.
 */
export class DataFolderUnusableError extends Error {
  override readonly name = 'DataFolderUnusableError';
  readonly dataDir: string;

  constructor(dataDir: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.dataDir = dataDir;
  }
}

/** The system's words for a file operation that failed, as an operator reads them; undefined when it is none. */
function fileProblem(error: unknown): string | undefined {
  const {
    code,
    syscall,
    path: filePath,
    address,
  } = (error ?? {}) as NodeJS.ErrnoException & { address?: unknown };
  // A socket's errors (listen, connect) name their file as `address`.
  const path = filePath ?? address;
  if (typeof code !== 'string' || typeof path !== 'string') return undefined;
  if (code === 'EEXIST' || code === 'ENOTDIR') return `${path} is not a folder`;
  if (code === 'EACCES' || code === 'EPERM')
    return `${syscall ?? 'using'} ${path} is not permitted (${code})`;
  if (code === 'EROFS') return `${path} is on a read-only file system`;
  return `${syscall ?? 'using'} ${path} failed (${code})`;
}

/**
 * Runs a file operation on the data folder; a failure of the file system becomes a
 * DataFolderUnusableError naming the folder, anything else passes unchanged.
 */
export async function onDataFolder<T>(dataDir: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const problem = fileProblem(error);
    if (problem === undefined) throw error;
    throw new DataFolderUnusableError(dataDir, `the data folder ${dataDir} cannot be used: ${problem}`, {
      cause: error,
    });
  }
}

/** Makes a folder; undefined once it is there, or the ENOENT that says its parent is not. */
async function makeOne(path: string): Promise<NodeJS.ErrnoException | undefined> {
  try {
    await mkdir(path);
    return undefined;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (failure.code === 'ENOENT') return failure;
    // Made meanwhile, or a symlink to a folder: the folder is there. A file there is not a folder.
    if (
      failure.code === 'EEXIST' &&
      (await stat(path).then(
        (found) => found.isDirectory(),
        () => false,
      ))
    ) {
      return undefined;
    }
    throw failure;
  }
}

/**
 * `mkdir -p`, which gives up where a folder's parent is there and the folder still cannot be made:
 * Node's own recursive mkdir spins forever there (under /proc, a child of a folder that is there
 * answers ENOENT).
 */
export async function makeFolder(path: string): Promise<void> {
  const missingParent = await makeOne(path);
  if (missingParent === undefined) return;
  if (dirname(path) === path) throw missingParent;
  await makeFolder(dirname(path));
  const stillMissing = await makeOne(path);
  if (stillMissing !== undefined) throw stillMissing;
}
