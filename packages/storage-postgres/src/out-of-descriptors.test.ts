import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { provideTestPostgres, warnDidNotRun } from '@plant-store/test-support';
import { afterAll, describe, expect, it } from 'vitest';

const server = await provideTestPostgres();
afterAll(async () => {
  await server?.cleanup();
});

/**
 * The server's connection string with its host as a name and as an address, whichever it was given
 * as: a name is resolved for every new connection, and resolving needs descriptors too. An address
 * other than a loopback one has no name known here.
 */
async function hostForms(connectionString: string): Promise<Record<string, string>> {
  const url = new URL(connectionString);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const withHost = (name: string) => Object.assign(new URL(url), { hostname: name }).toString();
  if (isIP(host) === 0)
    return { 'a name': connectionString, 'an address': withHost((await lookup(host)).address) };
  if (host === '::1' || host.startsWith('127.'))
    return { 'a name': withHost('localhost'), 'an address': connectionString };
  warnDidNotRun(
    'the out-of-descriptors test with a host name',
    `the server is at ${host}, an address with no name known here`,
  );
  return { 'an address': connectionString };
}

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

const forms = server === undefined ? { 'an address': '' } : await hostForms(server.connectionString);

describe.skipIf(!server)('a PostgreSQL storage in a process out of file descriptors', () => {
  it.each(Object.entries(forms))(
    'when the host is given as %s and a new connection finds no descriptor, then the operation rejects with StorageUnavailableError, and once descriptors are free it works again',
    async (form, connectionString) => {
      const { code, stdout, stderr } = await runChild(connectionString);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const { exhausted, freed } = JSON.parse(stdout) as { exhausted: string[]; freed: string[] };
      // The one connection the pool held serves one of them; the others found no descriptor: for a
      // socket (EMFILE), or first for resolving the name, which fails with whatever errno glibc left.
      const outage = form === 'a name' ? /^StorageUnavailableError: / : /^StorageUnavailableError: EMFILE$/;
      for (const outcome of exhausted)
        expect(outcome).toMatch(outcome === 'answered' ? /^answered$/ : outage);
      expect(exhausted.filter((outcome) => outcome !== 'answered').length).toBeGreaterThan(0);
      expect(freed).toEqual(['answered', 'answered', 'answered', 'answered']);
    },
  );
});
