// The identity provider of the JWT targets: a JWKS on loopback, in the bench's own process, and one
// access token per algorithm, reused for every request as a client reuses its token until it expires.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const BENCH_AUDIENCE = 'plant-store-bench';

export interface BenchProvider {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** An access token with plants:read and plants:write, valid for an hour. */
  token(alg: 'ES256' | 'RS256'): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchProvider(): Promise<BenchProvider> {
  const keys = await Promise.all(
    (['ES256', 'RS256'] as const).map(async (alg) => {
      const { privateKey, publicKey } = await generateKeyPair(alg);
      return {
        alg,
        kid: `bench-${alg}`,
        privateKey,
        jwk: { ...(await exportJWK(publicKey)), kid: `bench-${alg}`, alg },
      };
    }),
  );
  const body = JSON.stringify({ keys: keys.map((key) => key.jwk) });
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    token: async (alg) => {
      const key = keys.find((candidate) => candidate.alg === alg);
      if (key === undefined) throw new Error(`no ${alg} key`);
      return new SignJWT({ scope: 'plants:read plants:write', client_id: 'bench' })
        .setProtectedHeader({ alg, kid: key.kid })
        .setIssuer(issuer)
        .setAudience(BENCH_AUDIENCE)
        .setSubject('bench')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key.privateKey);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
