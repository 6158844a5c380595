// JWT access tokens from an identity provider, beside the static tokens (DESIGN.md, "JWT access
// tokens"): the service started with JWT_ISSUER against a provider of the tests' own on loopback.
import { Buffer } from 'node:buffer';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { type CryptoKey, exportSPKI, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from '../support/expect-error.ts';
import {
  AUDIENCE,
  type SigningKey,
  signingKey,
  startTestProvider,
  type TestProvider,
} from '../support/jwks-server.ts';
import { startTestServer, type TestServer, TOKEN } from '../support/test-server.ts';

let provider: TestProvider;
let server: TestServer;
let es256: SigningKey;
let rs256: SigningKey;

beforeAll(async () => {
  provider = await startTestProvider();
  es256 = await signingKey('ES256', 'es-1');
  rs256 = await signingKey('RS256', 'rs-1');
  provider.publish([es256, rs256]);
  server = await startTestServer(openMemoryPlantStorage(), {
    JWT_ISSUER: provider.issuer,
    JWT_AUDIENCE: AUDIENCE,
    JWT_CLOCK_TOLERANCE_S: '5',
  });
  // The keys are loaded in the background: ready once they are.
  for (let tries = 0; tries < 200 && (await fetch(`${server.url}/readyz`)).status !== 200; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

let lastId = 70_000n;
function freshId(): bigint {
  lastId += 1n;
  return lastId;
}
const create = (token: string, id = freshId()) =>
  fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: `{"id":${id},"name":"from a JWT"}`,
  });
const read = (token: string, path = '/plants?limit=1') =>
  fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const claims = (more: Record<string, unknown> = {}) => ({
  iss: provider.issuer,
  aud: AUDIENCE,
  sub: 'service-a',
  exp: nowSeconds() + 300,
  scope: 'plants:read plants:write',
  ...more,
});
/** A token signed as given, without the defaults of provider.token(): for claims that must be missing. */
const signed = (key: SigningKey, payload: Record<string, unknown>) =>
  new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);

async function expectInvalidToken(response: Response, description: RegExp): Promise<void> {
  const message = await expectErrorResponse(response, 401);
  expect(message).toMatch(description);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="plant-store", error="invalid_token", error_description="[^"]+"$/);
  expect(challenge).toMatch(description);
}

describe('accepted tokens', () => {
  it('when an ES256 or an RS256 access token with the write scope is sent, then the plant is created', async () => {
    expect((await create(await provider.token(es256))).status).toBe(200);
    expect((await create(await provider.token(rs256))).status).toBe(200);
  });

  it('when the scopes come as scp, a string or an array (Entra ID, Okta), then they count', async () => {
    const asArray = await provider.token(es256, { scope: undefined, scp: ['plants:write', 'other'] });
    expect((await create(asArray)).status).toBe(200);
    const asString = await provider.token(es256, { scope: undefined, scp: 'plants:read' });
    expect((await read(asString)).status).toBe(200);
  });

  it('when a request is made with a JWT, then its log line names the caller by sub, never the token', async () => {
    const token = await provider.token(es256, { client_id: 'client-42' }, {});
    const response = await create(token);
    expect(response.status).toBe(200);
    const id = response.headers.get('x-request-id');
    const line = server.logs.requests().find((logged) => logged.requestId === id);
    expect(line?.caller).toEqual({ kind: 'jwt', sub: 'service-a', clientId: 'client-42' });
    expect(server.logs.text()).not.toContain(token);
  });

  it('when a static token is sent, then it holds every scope and the log names it by a short digest', async () => {
    const response = await create(TOKEN);
    expect(response.status).toBe(200);
    const line = server.logs
      .requests()
      .find((logged) => logged.requestId === response.headers.get('x-request-id'));
    expect(line?.caller).toEqual({ kind: 'static', tokenDigest: expect.stringMatching(/^[0-9a-f]{12}$/) });
  });
});

describe('scopes (RFC 6750: 403 insufficient_scope)', () => {
  it('when a token holds only plants:read, then creating and deleting are 403 naming plants:write, and reading works', async () => {
    const token = await provider.token(es256, { scope: 'plants:read' });
    const created = await create(token);
    expect(await expectErrorResponse(created, 403)).toBe(
      'the bearer token does not hold the scope plants:write',
    );
    expect(created.headers.get('www-authenticate')).toBe(
      'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    );
    await expectErrorResponse(
      await fetch(`${server.url}/plants/1`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}` },
      }),
      403,
    );
    expect((await read(token)).status).toBe(200);
  });

  it('when a token holds no scope at all, then reading is 403 naming plants:read', async () => {
    const response = await read(await provider.token(es256, { scope: undefined }));
    expect(await expectErrorResponse(response, 403)).toBe(
      'the bearer token does not hold the scope plants:read',
    );
  });

  it('when a 403 is answered, then the body was never read: nothing is stored', async () => {
    const id = 79_999n;
    await expectErrorResponse(await create(await provider.token(es256, { scope: 'plants:read' }), id), 403);
    expect(await server.storage.plants.findById(id)).toBeUndefined();
  });
});

describe('refused tokens (401 invalid_token, naming the check)', () => {
  it('when the token has expired, beyond the clock tolerance, then 401 naming exp', async () => {
    await expectInvalidToken(
      await create(await signed(es256, claims({ exp: nowSeconds() - 60 }))),
      /expired \(exp\)/,
    );
  });

  it('when the token is not valid yet, then 401 naming nbf', async () => {
    await expectInvalidToken(await create(await signed(es256, claims({ nbf: nowSeconds() + 600 }))), /nbf/);
  });

  it('when nbf or exp is not a number, then 401 saying that claim is not valid, not that the token is not valid yet or expired', async () => {
    const nbf = await create(await signed(es256, claims({ nbf: 'tomorrow' })));
    await expectInvalidToken(nbf, /the token's nbf claim is not valid/);
    const exp = await create(await signed(es256, claims({ exp: String(nowSeconds() + 300) })));
    await expectInvalidToken(exp, /the token's exp claim is not valid/);
  });

  it('when iss or aud is missing, then 401 saying the token has no such claim, not that it names another', async () => {
    const { iss: _iss, ...withoutIss } = claims();
    await expectInvalidToken(await create(await signed(es256, withoutIss)), /the token has no iss claim/);
    const { aud: _aud, ...withoutAud } = claims();
    await expectInvalidToken(await create(await signed(es256, withoutAud)), /the token has no aud claim/);
  });

  it('when the issuer or the audience is another, then 401 naming iss or aud', async () => {
    await expectInvalidToken(
      await create(await signed(es256, claims({ iss: 'https://evil.example' }))),
      /\(iss\)/,
    );
    await expectInvalidToken(await create(await signed(es256, claims({ aud: 'another-api' }))), /\(aud\)/);
  });

  it('when exp is missing, then 401 naming it', async () => {
    const { exp: _exp, ...withoutExp } = claims();
    await expectInvalidToken(await create(await signed(es256, withoutExp)), /no exp claim/);
  });

  it('when alg is none (an unsecured JWT), then 401', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.`;
    await expectInvalidToken(await create(token), /algorithm that is not allowed|malformed/);
  });

  it("when a token is HS256-signed with the provider's public key as the secret (algorithm confusion), then 401", async () => {
    const publicKey = await importJWK(rs256.publicJwk, 'RS256');
    const pem = await exportSPKI(publicKey as CryptoKey);
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: rs256.kid })
      .sign(new TextEncoder().encode(pem));
    await expectInvalidToken(await create(token), /algorithm that is not allowed/);
  });

  it("when the signature is not the key's, then 401 naming the signature", async () => {
    const other = await signingKey('ES256', es256.kid);
    await expectInvalidToken(await create(await provider.token(other)), /signature/);
  });

  it('when the token names a kid the provider does not have, then 401 naming the key', async () => {
    const stranger = await signingKey('ES256', 'unknown-kid');
    await expectInvalidToken(await create(await provider.token(stranger)), /unknown key/);
  });

  it('when the token is 10 KB long, then it is refused as any other, never a 5xx', async () => {
    const long = await provider.token(es256, { padding: 'x'.repeat(10_000) });
    // Valid apart from its size: a big token is not an attack in itself, and it is checked like any other.
    expect((await create(long)).status).toBe(200);
    await expectInvalidToken(await create(`${long.slice(0, -4)}AAAA`), /signature/);
  });

  it('when a JWT string is also a configured static token, then it is the static token: accepted whatever its claims', async () => {
    const expired = await signed(es256, claims({ exp: nowSeconds() - 3600 }));
    const withStatic = await startTestServer(openMemoryPlantStorage(), {
      API_TOKENS: `${TOKEN},${expired}`,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
    });
    try {
      const response = await fetch(`${withStatic.url}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${expired}`, 'Content-Type': 'application/json' },
        body: '{"id":1,"name":"static"}',
      });
      expect(response.status).toBe(200);
    } finally {
      await withStatic.stop();
    }
  });
});

describe('a provider that is down', () => {
  it('when the keys were never loaded, then /readyz is 503, a JWT is a 503 with Retry-After, and static tokens still work', async () => {
    const unreachable = await startTestProvider();
    unreachable.setDown(true);
    const waiting = await startTestServer(openMemoryPlantStorage(), {
      JWT_ISSUER: unreachable.issuer,
      JWT_AUDIENCE: AUDIENCE,
    });
    try {
      const ready = await fetch(`${waiting.url}/readyz`);
      expect(await expectErrorResponse(ready, 503)).toBe("the identity provider's keys are not loaded yet");
      const key = await signingKey('ES256', 'k');
      const response = await fetch(`${waiting.url}/plants?limit=1`, {
        headers: { Authorization: `Bearer ${await unreachable.token(key)}` },
      });
      await expectErrorResponse(response, 503);
      expect(response.headers.get('retry-after')).toBe('5');
      const withStatic = await fetch(`${waiting.url}/plants?limit=1`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(withStatic.status).toBe(200);
    } finally {
      await waiting.stop();
      await unreachable.close();
    }
  });

  it('when the provider goes down after the keys were loaded, then tokens signed with known keys keep working', async () => {
    provider.setDown(true);
    try {
      expect((await create(await provider.token(es256))).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      provider.setDown(false);
    }
  });

  it('when /metrics is read, then it shows the age of the keys and the failed fetches', async () => {
    const text = await (
      await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(text).toMatch(/^plant_store_jwt_keys_age_seconds \d+(\.\d+)?$/m);
    expect(text).toMatch(/^plant_store_jwt_key_fetch_failures \d+$/m);
  });
});
