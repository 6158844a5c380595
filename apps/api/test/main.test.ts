import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftoverRuns, listeningUrl, runMain, waitForOutput } from './support/run-main.ts';

afterEach(killLeftoverRuns);

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-main-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));

/** The log lines of a run, as objects. */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function create(url: string, token: string): Promise<Response> {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: '{"id":1,"name":"Monstera","tag":"aroid"}',
  });
}

describe('the entry point, node src/main.ts', () => {
  it('when started with a token and memory storage, then it serves, and on SIGTERM it stops and exits 0', async () => {
    const run = runMain({ API_TOKENS: 'dev-token-123', DATABASE_URL: 'memory:', PORT: '0' });
    const url = await listeningUrl(run);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await create(url, 'dev-token-123');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('"msg":"stopped"');
    expect(run.stdout()).not.toContain('dev-token-123');
    expect(run.stderr()).toBe('');
  });

  it("when it listens on 0.0.0.0, then its listening line says so, and gives this machine's loopback as the URL to use", async () => {
    const run = runMain({ API_TOKENS: 'dev-token-123', DATABASE_URL: 'memory:', PORT: '0', HOST: '0.0.0.0' });
    const url = await listeningUrl(run);
    const port = new URL(url).port;
    const listening = JSON.parse(
      run
        .stdout()
        .split('\n')
        .find((line) => line.includes('"msg":"listening"')) ?? '{}',
    );
    expect(listening).toMatchObject({ listeningOn: `0.0.0.0:${port}`, url: `http://127.0.0.1:${port}` });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('when started without a token outside production, then it prints one generated token with a curl line, only on stderr', async () => {
    const run = runMain({ DATABASE_URL: 'memory:', PORT: '0' });
    const url = await listeningUrl(run);
    // The banner is written after the 'listening' line, to another pipe: it may arrive later.
    const banner = await waitForOutput(run, 'stderr', (text) => text.trimEnd().endsWith('-'.repeat(72)));
    const token = /Authorization: Bearer ([A-Za-z0-9_-]{43})'/.exec(banner)?.[1];
    expect(token).toBeDefined();
    expect(run.stderr()).toContain(`curl -X POST ${url}/plants -H 'Authorization: Bearer ${token}'`);
    expect(run.stderr()).toContain(`-d '{"id":1,"name":"Monstera","tag":"aroid"}'`);
    expect(run.stderr()).toContain(`API_TOKENS=${token} pnpm start`);
    expect(run.stdout()).not.toContain(token);

    expect((await create(url, token ?? '')).status).toBe(200);
    expect((await create(url, 'some-other-token')).status).toBe(401);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('when the configuration is bad, then it lists every problem on stderr and exits 1', async () => {
    const run = runMain({ PORT: 'eighty', NODE_ENV: 'production', DATABASE_URL: 'memory:' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('PORT must be a whole number from 0 to 65535, not "eighty"');
    expect(run.stderr()).toContain('refusing to start without API_TOKENS, API_TOKENS_FILE or JWT_ISSUER');
    expect(run.stdout()).toBe('');
  });

  it('when the port is in use, then it says so in one line naming PORT, and exits 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = runMain({ API_TOKENS: 'dev-token-123', DATABASE_URL: 'memory:', PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toBe(
        `plant-store cannot start: 127.0.0.1:${port} is in use by another process: set PORT to a free port\n`,
      );
      expect(run.stdout()).not.toContain('    at ');
    } finally {
      taken.close();
    }
  });

  it('when a variable is one edit from a setting (API_TOKEN), then stderr says once which setting it resembles, the log warns of it, and the service starts without it', async () => {
    const run = runMain({ API_TOKEN: 'mytoken', DATABASE_URL: 'memory:', PORT: '0' });
    const url = await listeningUrl(run);
    const said = 'API_TOKEN is not a setting, and is ignored: did you mean API_TOKENS?';
    const stderr = await waitForOutput(run, 'stderr', (text) => text.trimEnd().endsWith('-'.repeat(72)));
    expect(stderr.startsWith(`plant-store: ${said}\n`)).toBe(true);
    expect(stderr.split(said)).toHaveLength(2);
    expect(logLines(run.stdout()).filter((line) => line.level === 40)).toMatchObject([
      { variable: 'API_TOKEN', setting: 'API_TOKENS', msg: said },
    ]);
    // Ignored indeed: the token made up is the one accepted.
    expect((await create(url, 'mytoken')).status).toBe(401);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it("when the settings are refused, then the lookalikes' lines come first and the refusal is the last line", async () => {
    const run = runMain({ DATABASEURL: 'memory:', PORT: 'eighty' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(
      'plant-store: DATABASEURL is not a setting, and is ignored: did you mean DATABASE_URL?\n' +
        'plant-store cannot start: PORT must be a whole number from 0 to 65535, not "eighty"\n',
    );
    expect(run.stdout()).toBe('');
  });

  it('when the working directory has a .env, then its settings are read under those of the environment, and the log names it with its variables, never their values', async () => {
    const dir = await mkdtemp(join(tempDir, 'dotenv-'));
    await writeFile(
      join(dir, '.env'),
      "# a developer's settings\nAPI_TOKENS=from-the-file\nLOG_LEVEL=debug\nDATABASE_URL=memory:\nAPI_TOKEN=misspelt\n",
    );
    const run = runMain({ PORT: '0', LOG_LEVEL: 'info' }, { cwd: dir });
    const url = await listeningUrl(run);
    expect((await create(url, 'from-the-file')).status).toBe(200);
    const lines = logLines(run.stdout());
    expect(lines.find((line) => line.msg === 'settings read from .env')).toMatchObject({
      envFile: '.env',
      variables: ['API_TOKEN', 'API_TOKENS', 'DATABASE_URL', 'LOG_LEVEL'],
      keptFromEnvironment: ['LOG_LEVEL'],
    });
    // The environment's LOG_LEVEL won: no debug line.
    expect(lines.filter((line) => line.level === 20)).toEqual([]);
    expect(lines.find((line) => line.msg === 'listening')).toMatchObject({ storage: 'memory' });
    expect(run.stdout()).not.toContain('from-the-file');
    expect(run.stderr()).toBe(
      'plant-store: API_TOKEN (in .env) is not a setting, and is ignored: did you mean API_TOKENS?\n',
    );
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('when NODE_ENV is production in the environment, then a .env is not read, and the log says so', async () => {
    const dir = await mkdtemp(join(tempDir, 'dotenv-production-'));
    await writeFile(join(dir, '.env'), 'PORT=eighty\n');
    const run = runMain(
      { NODE_ENV: 'production', API_TOKENS: 'dev-token-123', DATABASE_URL: 'memory:', PORT: '0' },
      { cwd: dir },
    );
    await listeningUrl(run);
    expect(logLines(run.stdout()).find((line) => line.envFile === '.env')).toMatchObject({
      msg: '.env not read: NODE_ENV is production',
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('when .env cannot be read (a folder), then the start is refused in one line naming it', async () => {
    const dir = await mkdtemp(join(tempDir, 'dotenv-folder-'));
    await mkdir(join(dir, '.env'));
    const run = runMain({ API_TOKENS: 'dev-token-123', DATABASE_URL: 'memory:', PORT: '0' }, { cwd: dir });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(
      'plant-store cannot start: .env could not be read (not a regular file): make it a file this process may read, or remove it\n',
    );
  });
});
