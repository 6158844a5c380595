import { createHash } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PlantStorage, StorageUnavailableError } from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialChecker } from '../src/auth/credentials.ts';
import { fixedTokenSet, matchesAnyDigest } from '../src/auth/token-set.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/start.ts';
import { nodeRequest, rawExchange } from './support/raw-http.ts';
import { OTHER_TOKEN, startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-security-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));

/** Memory storage whose inserts fail as unavailable while `down` is true. */
function switchableStorage(): { storage: PlantStorage; setDown(down: boolean): void } {
  const inner = openMemoryPlantStorage();
  let down = false;
  return {
    setDown: (next) => {
      down = next;
    },
    storage: {
      ...inner,
      plants: {
        insertIfAbsent: async (plant) => {
          if (down) throw new StorageUnavailableError('connect ECONNREFUSED');
          return inner.plants.insertIfAbsent(plant);
        },
        findById: (id) => inner.plants.findById(id),
        listAfter: (after, limit, maxBytes, tag) => inner.plants.listAfter(after, limit, maxBytes, tag),
        update: (id, change, expected) => inner.plants.update(id, change, expected),
        deleteById: (id, expected) => inner.plants.deleteById(id, expected),
      },
    },
  };
}

describe('secrets in logs and answers', () => {
  const switchable = switchableStorage();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(switchable.storage, { LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('when requests of every outcome carry tokens, then no token appears in any log line or error body', async () => {
    const bodies: string[] = [];
    const keep = async (response: Response): Promise<Response> => {
      bodies.push(await response.clone().text());
      for (const [, value] of response.headers) bodies.push(value);
      return response;
    };
    const wrong = `${TOKEN}x`;
    await keep(await server.createPlant({ id: 1, name: 'ok' }));
    await keep(await server.createPlant({ id: 1, name: 'conflict' }));
    await keep(await server.createPlant({ id: 2, name: 'wrong' }, { Authorization: `Bearer ${wrong}` }));
    await keep(
      await server.createPlant({ id: 3, name: 'prefix' }, { Authorization: `Bearer ${TOKEN.slice(0, 8)}` }),
    );
    await keep(await server.createPlant({ id: 4, name: 'malformed' }, { Authorization: `Token ${TOKEN}` }));
    await keep(await server.createPlant({ id: 5 }, { Authorization: `Bearer ${OTHER_TOKEN}` }));
    await keep(await server.createPlant('{"id":6,', { 'Content-Type': 'text/plain' }));
    // The query string is never logged (the path is, as sent: a token put in a path is the client's to keep out).
    await keep(
      await fetch(`${server.url}/nowhere?token=${TOKEN}`, { headers: { Authorization: `Bearer ${TOKEN}` } }),
    );
    await keep(
      await fetch(`${server.url}/plants`, { method: 'PUT', headers: { Authorization: `Bearer ${TOKEN}` } }),
    );
    await keep(await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${wrong}` } }));
    switchable.setDown(true);
    await keep(await server.createPlant({ id: 7, name: 'down' }));
    switchable.setDown(false);
    bodies.push(
      (
        await nodeRequest(server.port, {
          headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Length': 1e9 },
          keepOpen: true,
        })
      ).text,
    );
    // Requests Node's parser refuses: the raw bytes hold the credential; only the error code is logged.
    bodies.push(
      await rawExchange(
        server.port,
        `POST /plants HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nBad Header: 1\r\n\r\n`,
      ),
    );
    bodies.push(
      await rawExchange(
        server.port,
        `GET / HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );

    const statuses = server.logs.requests().map((line) => line.status);
    expect(statuses).toEqual(expect.arrayContaining([200, 409, 401, 400, 404, 405, 415, 503]));
    const logs = server.logs.text();
    for (const secret of [TOKEN, OTHER_TOKEN, wrong, TOKEN.slice(0, 8)]) {
      expect(logs).not.toContain(secret);
      for (const body of bodies) expect(body).not.toContain(secret);
    }
    expect(logs.toLowerCase()).not.toContain('authorization');
  });
});

describe('the token comparison', () => {
  it('when a credential is checked, then every configured token is compared, on 32-byte digests, whichever matches', () => {
    const tokens = ['alpha-token', 'beta-token', 'gamma-token'];
    const digests = tokens.map((token) => Buffer.from(fixedDigest(token)));
    for (const credential of ['alpha-token', 'gamma-token', 'nope', 'alpha-toke', 'x'.repeat(4096)]) {
      const compared: number[] = [];
      const result = matchesAnyDigest(Buffer.from(fixedDigest(credential)), digests, (a, b) => {
        compared.push(a.length, b.length);
        return a.equals(b);
      });
      expect(result).toBe(tokens.includes(credential));
      // No early exit on a match, no length that depends on the credential.
      expect(compared).toEqual(Array(tokens.length * 2).fill(32));
    }
  });

  it('when any string is offered, then it is accepted exactly when it is one of the tokens (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }),
        fc.string(),
        async (tokens, other) => {
          const checker = createCredentialChecker({
            staticTokens: fixedTokenSet(tokens),
            hasStaticTokens: true,
            scopes: { read: 'plants:read', write: 'plants:write' },
          });
          const accepted = async (credential: string) =>
            (await checker.check(credential)).outcome === 'accepted';
          for (const token of tokens) expect(await accepted(token)).toBe(true);
          expect(await accepted(other)).toBe(tokens.includes(other));
        },
      ),
      { numRuns: 200 },
    );
  });
});

function fixedDigest(text: string): Uint8Array {
  // The same digest token-set.ts uses; recomputed here so the test does not reach into its internals.
  return new Uint8Array(createHash('sha256').update(text, 'utf8').digest());
}

describe('response headers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(openMemoryPlantStorage());
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('when answers of every kind are sent, then no header names a server, a framework or a version', async () => {
    const responses = [
      await server.createPlant({ id: 1, name: 'a' }),
      await server.createPlant('{'),
      await server.createPlant({ id: 1, name: 'a' }, { Authorization: 'Bearer wrong' }),
      await fetch(`${server.url}/nowhere`),
      await fetch(`${server.url}/plants`),
      await fetch(`${server.url}/healthz`),
      await fetch(`${server.url}/readyz`),
      await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } }),
    ];
    const raw = await rawExchange(server.port, 'GARBAGE\r\n\r\n');
    const headerLines: string[] = raw.split('\r\n\r\n')[0]?.split('\r\n').slice(1) ?? [];
    for (const response of responses)
      for (const [name, value] of response.headers) headerLines.push(`${name}: ${value}`);

    for (const line of headerLines) {
      expect(line).not.toMatch(/^(server|x-powered-by|via|x-aspnet-version):/i);
      expect(line).not.toMatch(/koa|node|express|pino|prom-client|postgres|pglite|kysely/i);
      // A version-like x.y.z anywhere but in the metrics' own format version.
      if (!/^content-type: text\/plain; version=0\.0\.4/i.test(line))
        expect(line).not.toMatch(/\d+\.\d+\.\d+/);
    }
  });
});

describe('API_TOKENS_FILE rotation without a restart', () => {
  const file = join(tempDir, 'tokens');
  let server: TestServer;
  const status = async (token: string): Promise<number> =>
    (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).status;

  beforeAll(async () => {
    await writeFile(file, '# first generation\nfile-token-one\n');
    server = await startTestServer(openMemoryPlantStorage(), {
      API_TOKENS: 'env-token',
      API_TOKENS_FILE: file,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('when the file is replaced (a new secret is mounted), then its new tokens are accepted and the removed ones refused within seconds, and API_TOKENS stays valid', async () => {
    expect(await status('file-token-one')).toBe(200);
    expect(await status('file-token-two')).toBe(401);

    // The way Kubernetes and Docker swap a secret: write aside, then rename over it.
    await writeFile(`${file}.new`, 'file-token-two\n');
    await rename(`${file}.new`, file);
    await expect.poll(() => status('file-token-two'), { timeout: 10_000, interval: 200 }).toBe(200);
    expect(await status('file-token-one')).toBe(401);
    expect(await status('env-token')).toBe(200);

    // Rewritten in place.
    await writeFile(file, 'file-token-three\nfile-token-two\n');
    await expect.poll(() => status('file-token-three'), { timeout: 10_000, interval: 200 }).toBe(200);
    expect(
      server.logs.lines().filter((line) => line.msg === 'API_TOKENS_FILE changed: tokens reloaded'),
    ).toHaveLength(2);
  });

  it('when the file turns bad (an invalid line, empty, missing), then the previous tokens stay, with a warning that names no token', async () => {
    const before = server.logs.lines().length;
    await writeFile(file, 'file-token-four\nnot a token!\n');
    // The file is looked at on a request, at most once a second.
    await expect
      .poll(
        async () =>
          (await status('file-token-three')) === 200 &&
          server.logs
            .lines()
            .slice(before)
            .some((line) => line.level === 40),
        {
          timeout: 10_000,
          interval: 200,
        },
      )
      .toBe(true);
    expect(await status('file-token-three')).toBe(200);
    expect(await status('file-token-four')).toBe(401);

    await writeFile(file, '');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await status('file-token-three')).toBe(200);

    await rm(file);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await status('file-token-three')).toBe(200);
    expect(await status('env-token')).toBe(200);

    const warnings = server.logs
      .lines()
      .slice(before)
      .filter((line) => line.level === 40);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(warnings)).not.toMatch(/file-token|not a token/);
  });
});

describe('API_TOKENS_FILE between reading the configuration and serving', () => {
  it('when the file is rotated after the configuration was read, then the service takes the new tokens within seconds and refuses the old ones', async () => {
    const file = join(tempDir, 'tokens-at-start');
    await writeFile(file, 'token-of-the-first-secret\n');
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: 'memory:',
      API_TOKENS: 'env-token',
      API_TOKENS_FILE: file,
      LOG_LEVEL: 'silent',
    });
    // The secret is swapped while the service opens its storage (a migration may take seconds).
    await writeFile(`${file}.new`, 'token-of-the-second-secret, and-another\n');
    await rename(`${file}.new`, file);
    const server = await startServer(config);
    const status = async (token: string): Promise<number> =>
      (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).status;
    try {
      await expect
        .poll(() => status('token-of-the-second-secret'), { timeout: 10_000, interval: 200 })
        .toBe(200);
      expect(await status('token-of-the-first-secret')).toBe(401);
      expect(await status('env-token')).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
