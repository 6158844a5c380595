// The service's own cost: on memory: against "koa + @koa/router minimal" (the same framework and
// router, the same parse, no storage), and with JWT access tokens against a static token.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import {
  type Context,
  freshPlant,
  type Part,
  runGroup,
  type Side,
  selected,
  serverSide,
  startBaseline,
  startService,
} from '../harness.ts';

const AUDIENCE = 'plant-store-bench';

/**
 * An identity provider for the JWT sides: a JWKS on loopback in the bench's own process, and one access
 * token per algorithm, reused for every request as a client reuses its token until it expires (the
 * service's verified-token cache answers after the first request).
 */
async function startProvider() {
  const algorithms = ['ES256', 'RS256'] as const;
  const keys = await Promise.all(algorithms.map((alg) => generateKeyPair(alg)));
  const jwks = await Promise.all(
    keys.map(async ({ publicKey }, index) => ({
      ...(await exportJWK(publicKey)),
      kid: algorithms[index],
      alg: algorithms[index],
    })),
  );
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: jwks })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = (index: 0 | 1) =>
    new SignJWT({ scope: 'plants:read plants:write', client_id: 'bench' })
      .setProtectedHeader({ alg: algorithms[index], kid: algorithms[index] })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setSubject('bench')
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign((keys[index] as (typeof keys)[number]).privateKey);
  const env = {
    DATABASE_URL: 'memory:',
    JWT_ISSUER: issuer,
    JWT_JWKS_URL: `${issuer}/jwks`,
    JWT_AUDIENCE: AUDIENCE,
  };
  return { env, tokens: [await token(0), await token(1)] as const, close: () => server.close() };
}

async function run(context: Context) {
  const want = (key: string) => selected(context, 'on-memory', key);
  const traffic = { token: context.token, body: freshPlant };
  const sides: Side[] = [];
  if (want('koa'))
    sides.push(
      serverSide(context, {
        key: 'koa',
        label: 'baseline: koa + @koa/router minimal',
        launch: () => startBaseline(context, 'koa + @koa/router minimal', 'koa-router.ts'),
        traffic,
      }),
    );
  if (want('memory'))
    sides.push(
      serverSide(context, {
        key: 'memory',
        label: 'service, memory:',
        baselines: ['koa'],
        launch: () => startService(context, 'service (memory:)', { DATABASE_URL: 'memory:' }),
        traffic,
      }),
    );
  const jwt = (['es256', 'rs256'] as const).filter((alg) => want(`jwt-${alg}`));
  const provider = jwt.length > 0 ? await startProvider() : undefined;
  for (const alg of jwt) {
    if (provider === undefined) break;
    const token = provider.tokens[alg === 'es256' ? 0 : 1];
    sides.push(
      serverSide(context, {
        key: `jwt-${alg}`,
        label: `service, memory:, ${alg.toUpperCase()} JWT`,
        baselines: ['memory'],
        // The target is at c16; every level when --connections leaves it out.
        ...(context.options.connections.includes(16) ? { levels: [16] } : {}),
        // Ready once the keys were loaded.
        launch: () =>
          startService(context, `service (memory:, ${alg} JWT)`, provider.env, { readyPath: '/readyz' }),
        traffic: { token, body: freshPlant },
      }),
    );
  }
  try {
    return await runGroup(context, sides);
  } finally {
    provider?.close();
  }
}

export const memoryPart: Part = {
  name: 'on-memory',
  keys: ['koa', 'memory', 'jwt-es256', 'jwt-rs256'],
  usesPostgres: false,
  run,
};
