// Against a real, certified OpenID provider (oidc-provider) on loopback: a client takes access tokens
// from its token endpoint (client credentials, RFC 9068 JWTs for the plants resource), as a service
// would, and uses them; discovery and the JWKS are the provider's own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from '../support/expect-error.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// Another loopback address than the service's (see jwks-server.ts).
const HOST = '127.0.0.2';
const RESOURCE = 'https://plants.example.test/';
const CLIENTS = [
  { client_id: 'writer', client_secret: 'writer-secret', scope: 'plants:read plants:write' },
  { client_id: 'reader', client_secret: 'reader-secret', scope: 'plants:read' },
];

let httpServer: Server;
let issuer: string;
let server: TestServer;

beforeAll(async () => {
  httpServer = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, HOST, resolve));
  issuer = `http://${HOST}:${(httpServer.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: CLIENTS.map((client) => ({
      ...client,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    })),
    scopes: ['openid', 'plants:read', 'plants:write'],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'provider-es256', alg: 'ES256', use: 'sig' }] },
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        getResourceServerInfo: () => ({
          scope: 'plants:read plants:write',
          audience: RESOURCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  httpServer.on('request', provider.callback());
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
  httpServer?.closeAllConnections();
  await new Promise((resolve) => httpServer?.close(resolve));
});

/** An access token from the provider's token endpoint, as a client takes one (client credentials). */
async function accessToken(clientId: string, scope: string): Promise<string> {
  const client = CLIENTS.find((candidate) => candidate.client_id === clientId);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: client?.client_secret ?? '',
      scope,
      resource: RESOURCE,
    }),
  });
  const body = (await response.json()) as { access_token?: string; error?: string };
  if (body.access_token === undefined) throw new Error(`the provider gave no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

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
