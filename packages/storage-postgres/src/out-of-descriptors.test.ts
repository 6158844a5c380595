import { spawn } from 'node:child_process';
import { provideTestPostgres } from '@plant-store/test-support';
import { afterAll, describe, expect, it } from 'vitest';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

const OPENER = new URL('./open-postgres-plant-storage.ts', import.meta.url).href;

/**
 * Runs in a child whose descriptor limit is low (`ulimit -n`): opens the storage, takes every free
 * descriptor, asks the storage for more connections than it holds, gives the descriptors back and
 * asks again. Prints what each step answered, as JSON.
 */
const CHILD = `
import { openSync, closeSync } from 'node:fs';
const { openPostgresPlantStorage } = await import(${JSON.stringify(OPENER)});
const describe = (outcome) =>
  outcome.status === 'fulfilled'
    ? 'answered'
    : \`\${outcome.reason?.name}: \${outcome.reason?.cause?.code ?? outcome.reason?.message}\`;
const storage = await openPostgresPlantStorage({ connectionString: process.env.CONNECTION_STRING, groupCommit: false });
const held = [];
for (;;) {
  try {
    held.push(openSync('/dev/null', 'r'));
  } catch (error) {
    if (error.code !== 'EMFILE') throw error;
    break;
  }
}
// The pool holds one idle connection: four operations at once need three new ones.
const exhausted = await Promise.allSettled([
  storage.plants.findById(1n),
  storage.plants.listAfter(undefined, 1),
  storage.plants.insertIfAbsent({ id: 9n, name: 'Fern' }),
  storage.checkReady(),
]);
for (const fd of held) closeSync(fd);
const freed = await Promise.allSettled([
  storage.plants.findById(1n),
  storage.plants.listAfter(undefined, 1),
  storage.plants.deleteById(9n),
  storage.checkReady(),
]);
await storage.close();
process.stdout.write(JSON.stringify({ exhausted: exhausted.map(describe), freed: freed.map(describe) }));
`;

function runChild(
  connectionString: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      'ulimit -n 256 && exec "$@"',
      'sh',
      process.execPath,
      '--conditions=@plant-store/source',
      '--input-type=module',
      '--eval',
      CHILD,
    ],
    { env: { ...process.env, CONNECTION_STRING: connectionString }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(!server)('a PostgreSQL storage in a process out of file descriptors', () => {
  it('when a new connection fails with EMFILE, then the operation rejects with StorageUnavailableError, and once descriptors are free it works again', async () => {
    const { code, stdout, stderr } = await runChild(server?.connectionString ?? '');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { exhausted, freed } = JSON.parse(stdout) as { exhausted: string[]; freed: string[] };
    // The one connection the pool held serves one of them; the others found no descriptor.
    for (const outcome of exhausted)
      expect(['answered', 'StorageUnavailableError: EMFILE']).toContain(outcome);
    expect(
      exhausted.filter((outcome) => outcome === 'StorageUnavailableError: EMFILE').length,
    ).toBeGreaterThan(0);
    expect(freed).toEqual(['answered', 'answered', 'answered', 'answered']);
  });
});
