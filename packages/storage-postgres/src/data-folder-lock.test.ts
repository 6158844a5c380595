import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DataFolderUnusableError } from './data-folder.ts';
import { DataFolderInUseError, lockDataFolder } from './data-folder-lock.ts';

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-lock-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));
let folders = 0;
const freshFolder = (): string => join(tempDir, `folder-${folders++}`);

const LOCK_MODULE = new URL('./data-folder-lock.ts', import.meta.url).href;

// A process that claims the folder once it reads "go", prints what came of it as one JSON line, and
// holds what it took until its stdin closes.
const CLAIMER = `
const { lockDataFolder } = await import(${JSON.stringify(LOCK_MODULE)});
process.stdin.setEncoding('utf8');
process.stdout.write('ready\\n');
let input = '';
let lock;
process.stdin.on('data', async (chunk) => {
  input += chunk;
  if (input !== 'go\\n') return;
  try {
    lock = await lockDataFolder(process.env.FOLDER);
    process.stdout.write(JSON.stringify({ held: true }) + '\\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ name: error.name, message: error.message, holder: error.holder }) + '\\n');
  }
});
process.stdin.on('end', async () => {
  await lock?.release();
});
`;

interface Claimer {
  readonly child: ChildProcess;
  /** Resolves once it can be told to go. */
  readonly ready: Promise<void>;
  go(): void;
  /** What its claim came to. */
  readonly outcome: Promise<{ held?: true; name?: string; message?: string; holder?: unknown }>;
  readonly exited: Promise<unknown>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startClaimer(folder: string): Claimer {
  const child = spawn(process.execPath, ['--input-type=module', '--eval', CLAIMER], {
    env: { ...process.env, FOLDER: folder },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  let text = '';
  const lines: ((line: string) => void)[] = [];
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    text += chunk;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      lines.shift()?.(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => lines.push(resolve));
  const ready = nextLine().then(() => undefined);
  const outcome = ready.then(nextLine).then((line) => JSON.parse(line));
  return {
    child,
    ready,
    go: () => child.stdin?.write('go\n'),
    outcome,
    exited: new Promise((resolve) => child.on('exit', resolve)),
  };
}

async function holdingClaimer(folder: string): Promise<Claimer> {
  const claimer = startClaimer(folder);
  await claimer.ready;
  claimer.go();
  expect(await claimer.outcome).toEqual({ held: true });
  return claimer;
}

describe('lockDataFolder', () => {
  it('when another process holds the folder, then a claim is refused naming the folder and that process', async () => {
    const folder = freshFolder();
    const holder = await holdingClaimer(folder);
    const refused = await lockDataFolder(folder).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataFolderInUseError);
    expect(refused).toMatchObject({ dataDir: folder, holder: { pid: holder.child.pid, host: hostname() } });
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^the data folder ${folder} is in use by process ${holder.child.pid} on ${hostname()} \\(since \\d{4}-`,
      ),
    );
  });

  it('when the holder lets the folder go, then the next claim takes it', async () => {
    const folder = freshFolder();
    const holder = await holdingClaimer(folder);
    holder.child.stdin?.end();
    await holder.exited;
    const lock = await lockDataFolder(folder);
    await lock.release();
  });

  it('when the holder was killed with SIGKILL, then the next claim takes the folder, and what the dead one left is gone', async () => {
    const folder = freshFolder();
    const holder = await holdingClaimer(folder);
    holder.child.kill('SIGKILL');
    await holder.exited;
    // The dead holder's socket is still there: only the kernel's side of it closed.
    expect(await readdir(join(folder, '.plant-store-lock'))).toHaveLength(1);
    const lock = await lockDataFolder(folder);
    try {
      expect(await readdir(join(folder, '.plant-store-lock'))).toHaveLength(1);
      await expect(lockDataFolder(folder)).rejects.toMatchObject({ holder: { pid: process.pid } });
    } finally {
      await lock.release();
    }
    expect(await readdir(join(folder, '.plant-store-lock'))).toEqual([]);
  });

  it('when eight processes claim one folder at once, then exactly one holds it and the others are refused, naming it', async () => {
    const folder = freshFolder();
    const claimers = Array.from({ length: 8 }, () => startClaimer(folder));
    await Promise.all(claimers.map((claimer) => claimer.ready));
    for (const claimer of claimers) claimer.go();
    const outcomes = await Promise.all(claimers.map((claimer) => claimer.outcome));
    const winners = claimers.filter((_, index) => outcomes[index]?.held === true);
    expect(winners).toHaveLength(1);
    const winner = winners[0]?.child.pid;
    for (const outcome of outcomes.filter((found) => found.held !== true)) {
      expect(outcome).toMatchObject({ name: 'DataFolderInUseError', holder: { pid: winner } });
    }
  });

  it("when the folder's path is too long for a Unix socket, even from the working directory, then it says so", async () => {
    const folder = join(tempDir, 'x'.repeat(120));
    const refused = await lockDataFolder(folder).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataFolderUnusableError);
    expect((refused as Error).message).toBe(
      `the data folder's path is too long for its lock (a Unix socket path holds 107 bytes): ${folder}`,
    );
  });
});

describe('lockDataFolder on a folder it cannot use', () => {
  /** The refusal a claim on `folder` ends with: a DataFolderUnusableError naming the folder. */
  async function refusalOf(folder: string): Promise<string> {
    const refused = await lockDataFolder(folder).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataFolderUnusableError);
    expect(refused).toMatchObject({ dataDir: folder });
    return (refused as Error).message;
  }

  it('when the folder is a file, then the claim is refused naming it', async () => {
    expect(await refusalOf('/dev/null')).toBe(
      'the data folder /dev/null cannot be used: /dev/null is not a folder',
    );
  });

  it("when a file is where the lock's folder goes, then the claim is refused naming that file", async () => {
    const folder = freshFolder();
    await mkdir(folder);
    await writeFile(join(folder, '.plant-store-lock'), '');
    expect(await refusalOf(folder)).toBe(
      `the data folder ${folder} cannot be used: ${folder}/.plant-store-lock is not a folder`,
    );
  });

  // No process may make a folder in /sys/kernel, root included (EPERM; EROFS where /sys is mounted read-only).
  it('when the folder is one no process may write in, then the claim is refused naming it', async () => {
    expect(await refusalOf('/sys/kernel')).toMatch(
      /^the data folder \/sys\/kernel cannot be used: (mkdir \/sys\/kernel\/\.plant-store-lock is not permitted \((EPERM|EACCES)\)|\/sys\/kernel\/\.plant-store-lock is on a read-only file system)$/,
    );
  });

  // Node's recursive mkdir spins forever on such a path: a parent that is there, a child never made.
  it('when the folder is under /proc, where no folder can be made, then the claim is refused naming it', async () => {
    expect(await refusalOf('/proc/plant-store-data')).toBe(
      'the data folder /proc/plant-store-data cannot be used: mkdir /proc/plant-store-data failed (ENOENT)',
    );
  });
});
