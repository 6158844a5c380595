// Against a real, certified OpenID provider (oidc-provider) on loopback: a client takes access tokens
// from its token endpoint (client credentials, RFC 9068 JWTs for the plants resource), as a service
// would, and uses them; discovery and the JWKS are the provider's own.
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningIssuer, startIssuer } from '../../scripts/dev-issuer.ts';
import { expectErrorResponse } from '../support/expect-error.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Another loopback address than the service's (see jwks-server.ts).
const HOST = '127.0.0.2';
const RESOURCE = 'https://plants.example.test/';

let provider: RunningIssuer;
let issuer: string;
let server: TestServer;

beforeAll(async () => {
  // The provider `pnpm dev:issuer` runs, here with the resource's URL as the tokens' audience.
  provider = await startIssuer({
    host: HOST,
    port: 0,
    resource: RESOURCE,
    audience: RESOURCE,
    clients: [
      { client_id: 'writer', client_secret: 'writer-secret', scope: 'plants:read plants:write' },
      { client_id: 'reader', client_secret: 'reader-secret', scope: 'plants:read' },
    ],
    accessTokenTtlSeconds: 300,
  });
  issuer = provider.issuer;
  server = await startTestServer(openMemoryPlantStorage(), {
    JWT_ISSUER: issuer,
    JWT_AUDIENCE: RESOURCE,
    JWT_ALGORITHMS: 'ES256',
    JWT_STRICT_PROFILE: 'on',
  });
  for (let tries = 0; tries < 200 && (await fetch(`${server.url}/readyz`)).status !== 200; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** An access token from the provider's token endpoint, as a client takes one (client credentials). */
const accessToken = (clientId: string, scope: string) => provider.accessToken(clientId, scope);

describe('access tokens of a real OpenID provider (oidc-provider, RFC 9068 profile on)', () => {
  it('when the service is started with JWT_ISSUER, then it found the keys through discovery and is ready', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('when a client takes a token with plants:write from the token endpoint, then it creates, reads and deletes', async () => {
    const token = await accessToken('writer', 'plants:read plants:write');
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers,
      body: '{"id":9007199254740993,"name":"from the provider"}',
    });
    expect(created.status).toBe(200);
    expect((await fetch(`${server.url}/plants/9007199254740993`, { headers })).status).toBe(200);
    expect((await fetch(`${server.url}/plants/9007199254740993`, { method: 'DELETE', headers })).status).toBe(
      204,
    );
    const line = server.logs
      .requests()
      .find((logged) => logged.requestId === created.headers.get('x-request-id'));
    expect(line?.caller).toMatchObject({ kind: 'jwt', clientId: 'writer' });
  });

  it('when a client holds only plants:read, then it reads, and a create is 403 insufficient_scope', async () => {
    const token = await accessToken('reader', 'plants:read');
    expect(
      (await fetch(`${server.url}/plants?limit=1`, { headers: { Authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    const refused = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"id":1,"name":"no"}',
    });
    await expectErrorResponse(refused, 403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    );
  });

  it('when the token was issued for another resource (audience), then 401 naming aud', async () => {
    const otherService = await startTestServer(openMemoryPlantStorage(), {
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: 'https://another.example.test/',
    });
    try {
      for (
        let tries = 0;
        tries < 200 && (await fetch(`${otherService.url}/readyz`)).status !== 200;
        tries += 1
      ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const token = await accessToken('writer', 'plants:read');
      const response = await fetch(`${otherService.url}/plants?limit=1`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(await expectErrorResponse(response, 401)).toMatch(/\(aud\)/);
    } finally {
      await otherService.stop();
    }
  });
});
