import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/** A signing key of the test provider: its algorithm, kid and private key. */
export interface SigningKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export async function signingKey(
  alg: 'ES256' | 'RS256' | 'PS256' | 'EdDSA',
  kid: string,
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * An identity provider of the tests' own: discovery and a JWKS on loopback, whose keys can be
 * rotated and which can be taken down and brought back, for the drills a real provider cannot do.
 */
export interface TestProvider {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** The keys it publishes now. */
  publish(keys: readonly SigningKey[]): void;
  /** Answers 503 to everything while down. */
  setDown(down: boolean): void;
  /** Pads one of its answers past 2 MiB, its length declared or sent chunked; undefined: answers as usual. */
  oversize(answer: OversizedAnswer | undefined): void;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** Every request it got, in order: its path, headers, and when it came (Date.now()). */
  requests(): readonly {
    readonly path: string;
    readonly headers: IncomingHttpHeaders;
    readonly at: number;
  }[];
  /** An access token signed with `key`: iss, aud, sub, both scopes, iat, exp in 5 min, each overridden by `claims`. */
  token(key: SigningKey, claims?: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Which answer of the provider is padded past 2 MiB, and how its length is told. */
export interface OversizedAnswer {
  readonly document: 'discovery' | 'jwks';
  readonly framing: 'declared' | 'chunked';
}

const OVERSIZED_PADDING = 'x'.repeat(2 * 1024 * 1024);

/** Sends the document padded past 2 MiB (still valid JSON, still the same members): with Content-Length, or chunked. */
function sendOversized(
  res: ServerResponse,
  document: Record<string, unknown>,
  framing: 'declared' | 'chunked',
) {
  const body = Buffer.from(JSON.stringify({ ...document, padding: OVERSIZED_PADDING }));
  if (framing === 'declared') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  for (let start = 0; start < body.length; start += 65_536) res.write(body.subarray(start, start + 65_536));
  res.end();
}

export const AUDIENCE = 'plant-store-tests';
const PROVIDER_HOST = '127.0.0.2';

export async function startTestProvider(): Promise<TestProvider> {
  let keys: readonly SigningKey[] = [];
  let down = false;
  let oversized: OversizedAnswer | undefined;
  let fetches = 0;
  const requests: { path: string; headers: IncomingHttpHeaders; at: number }[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers, at: Date.now() });
    if (down) {
      res.writeHead(503).end();
      return;
    }
    const answer = (document: 'discovery' | 'jwks', body: Record<string, unknown>) => {
      if (oversized?.document === document) {
        sendOversized(res, body, oversized.framing);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      answer('discovery', { issuer: base, jwks_uri: `${base}/jwks` });
      return;
    }
    if (req.url === '/jwks') {
      fetches += 1;
      answer('jwks', { keys: keys.map((key) => key.publicJwk) });
      return;
    }
    res.writeHead(404).end();
  });
  // Another loopback address than the service's: the provider is another host, and the tests' check of
  // every answer against the service's OpenAPI document (validate-responses.setup.ts) leaves it alone.
  await new Promise<void>((resolve) => server.listen(0, PROVIDER_HOST, resolve));
  base = `http://${PROVIDER_HOST}:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    jwksUrl: `${base}/jwks`,
    publish: (published) => {
      keys = published;
    },
    setDown: (value) => {
      down = value;
    },
    oversize: (answer) => {
      oversized = answer;
    },
    jwksFetches: () => fetches,
    requests: () => requests,
    token: (key, claims = {}, header = {}) => {
      const jwt = new SignJWT({
        iss: base,
        aud: AUDIENCE,
        sub: 'service-a',
        scope: 'plants:read plants:write',
        ...claims,
      })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
        .setIssuedAt();
      // A given exp wins over the default of five minutes.
      if (claims.exp === undefined) jwt.setExpirationTime('5m');
      return jwt.sign(key.privateKey);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
