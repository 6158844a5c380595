import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverRuns, listeningUrl, runMain, waitForOutput } from './support/run-main.ts';

afterEach(killLeftoverRuns);

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
});
