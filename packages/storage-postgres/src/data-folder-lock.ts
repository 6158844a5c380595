import { randomBytes } from 'node:crypto';
import { readdir, rename, unlink } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataFolderUnusableError, makeFolder, onDataFolder } from './data-folder.ts';

/** Who holds a data folder, as it answered. */
export interface DataFolderHolder {
  readonly pid: number;
  readonly host: string;
  /** When it took the folder, ISO 8601. */
  readonly since: string;
}

/** The data folder is held by another live process (or another opening in this one). */
export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
  readonly dataDir: string;
  /** Undefined when the holder did not say who it is (busy, or another user's process). */
  readonly holder: DataFolderHolder | undefined;

  constructor(dataDir: string, holder: DataFolderHolder | undefined) {
    const who =
      holder === undefined
        ? 'another process, which did not say which'
        : `process ${holder.pid} on ${holder.host} (since ${holder.since})`;
    super(`the data folder ${dataDir} is in use by ${who}`);
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

/** A held data folder: release() gives it up (idempotent). */
export interface DataFolderLock {
  release(): Promise<void>;
}

// PGlite does not lock its folder, and PostgreSQL's own postmaster.pid cannot tell a live holder from
// a killed one (in a container every holder is PID 1). A listening Unix socket can: the kernel closes
// it with its process, whatever ends it, so a connect that is refused means a dead holder. Each claim
// is a socket of its own (never a name reused), so removing a dead one can never remove a live one.
const LOCK_DIR = '.plant-store-lock';
// sun_path holds 108 bytes, its terminating NUL included.
const SOCKET_PATH_MAX = 107;
// How long a holder may take to say who it is, and a claim to decide, before it counts as a holder.
const ANSWER_TIMEOUT_MS = 5_000;
const DECIDE_TIMEOUT_MS = 10_000;

interface Answer {
  readonly holding: boolean;
  readonly holder: DataFolderHolder | undefined;
}

function parseAnswer(text: string): Answer {
  try {
    const parsed = JSON.parse(text) as Partial<DataFolderHolder & { holding: boolean }>;
    const holder =
      typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.since === 'string'
        ? { pid: parsed.pid, host: parsed.host, since: parsed.since }
        : undefined;
    return { holding: parsed.holding !== false, holder };
  } catch {
    return { holding: true, holder: undefined };
  }
}

/** A path the kernel accepts for this socket: absolute, or relative to the working directory when shorter. */
function socketPath(path: string): string {
  if (Buffer.byteLength(path) <= SOCKET_PATH_MAX) return path;
  const fromHere = relative(process.cwd(), path);
  if (Buffer.byteLength(fromHere) <= SOCKET_PATH_MAX) return fromHere;
  // The socket is in the lock's folder, in the data folder.
  const dataDir = dirname(dirname(path));
  throw new DataFolderUnusableError(
    dataDir,
    `the data folder's path is too long for its lock (a Unix socket path holds ${SOCKET_PATH_MAX} bytes): ${dataDir}`,
  );
}

/**
 * What the socket at `path` says: its answer, or 'gone' when nobody listens there any more (its
 * file, left by a process that died, is removed then) or it closed while we asked (a live claim
 * always answers before it ends a connection). Anything else (a full backlog, no permission, no
 * answer in time) counts as a live holder that did not say who it is.
 */
function probe(path: string): Promise<Answer | 'gone'> {
  return new Promise((resolvePromise) => {
    let text = '';
    const socket = connect(socketPath(path));
    const settle = (answer: Answer | 'gone'): void => {
      clearTimeout(timer);
      socket.destroy();
      resolvePromise(answer);
    };
    const timer = setTimeout(() => settle({ holding: true, holder: undefined }), ANSWER_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => settle(text === '' ? 'gone' : parseAnswer(text)));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNRESET' || error.code === 'EPIPE') settle('gone');
      else if (error.code === 'ECONNREFUSED') {
        void unlink(path).then(
          () => settle('gone'),
          () => settle('gone'),
        );
      } else settle({ holding: true, holder: undefined });
    });
  });
}

/** This process's claim: a socket that answers who it is and whether it holds the folder yet. */
interface Claim {
  readonly name: string;
  hold(): void;
  close(): Promise<void>;
}

function claimName(): string {
  // Sorts by time, then at random: of claims made at once, the earlier one wins.
  return `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
}

/**
 * Listens on a socket of its own, and makes it visible in the lock folder only once it answers.
 * Undefined when another claim took it for a dead one meanwhile (refused between bind and listen).
 */
async function announce(dir: string, holder: DataFolderHolder): Promise<Claim | undefined> {
  const name = claimName();
  const hidden = join(dir, `.${name}`);
  const visible = join(dir, name);
  let holding = false;
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(`${JSON.stringify({ ...holder, holding })}\n`);
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(socketPath(hidden), () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  // The lock must never keep the process alive.
  server.unref();
  try {
    await rename(hidden, visible);
  } catch (error) {
    await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    name,
    hold: () => {
      holding = true;
    },
    close: () => {
      closed ??= new Promise<void>((resolvePromise) => server.close(() => resolvePromise())).then(() =>
        unlink(visible).catch(() => {}),
      );
      return closed;
    },
  };
}

type Verdict = 'mine' | 'back off' | { readonly heldBy: DataFolderHolder | undefined };

/**
 * Decides a visible claim against every other. The folder is ours only after a look, taken once ours
 * was visible, that finds no other live: of two claims that both hold, each would have had to look
 * before the other was visible, which cannot be. Of claims made at once, the later backs off and the
 * earlier waits for it to go.
 */
async function decide(dir: string, mine: string): Promise<Verdict> {
  const deadline = Date.now() + DECIDE_TIMEOUT_MS;
  for (;;) {
    const others = (await readdir(dir)).filter((name) => !name.startsWith('.') && name !== mine);
    let waitFor: Answer | undefined;
    for (const other of others) {
      const answer = await probe(join(dir, other));
      if (answer === 'gone') continue;
      if (answer.holding) return { heldBy: answer.holder };
      if (other < mine) return 'back off';
      waitFor = answer;
    }
    if (waitFor === undefined) return 'mine';
    if (Date.now() > deadline) return { heldBy: waitFor.holder };
    await sleep(10);
  }
}

/** Removes what claims killed between listening and showing themselves left behind. */
async function removeDeadHidden(dir: string): Promise<void> {
  const hidden = (await readdir(dir)).filter((name) => name.startsWith('.'));
  await Promise.all(hidden.map((name) => probe(join(dir, name))));
}

/**
 * Takes the data folder for this process, making it if missing, or throws DataFolderInUseError naming
 * the live process that holds it (DataFolderUnusableError when the folder cannot be made or written). A
 * holder that died (crash, SIGKILL, a container stopped) holds nothing: its leftovers are removed by the
 * next claim.
 */
export async function lockDataFolder(dataDir: string): Promise<DataFolderLock> {
  const folder = resolve(dataDir);
  const dir = join(folder, LOCK_DIR);
  const holder: DataFolderHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  return onDataFolder(folder, async () => {
    await makeFolder(folder);
    await makeFolder(dir);
    for (;;) {
      const claim = await announce(dir, holder);
      if (claim === undefined) continue;
      let verdict: Verdict;
      try {
        verdict = await decide(dir, claim.name);
      } catch (error) {
        await claim.close();
        throw error;
      }
      if (verdict === 'mine') {
        claim.hold();
        await removeDeadHidden(dir).catch(() => {});
        return { release: claim.close };
      }
      await claim.close();
      if (verdict !== 'back off') throw new DataFolderInUseError(folder, verdict.heldBy);
      await sleep(20 + Math.random() * 80);
    }
  });
}
