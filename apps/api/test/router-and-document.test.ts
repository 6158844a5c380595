// The router and the published document are made from one table of operations: every operation the
// router serves is in the document and the reverse, and each answers as the document's security says.

import type Router from '@koa/router';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { configuredCredentials } from '../src/auth/configured-credentials.ts';
import { loadConfig } from '../src/config.ts';
import type { AppState } from '../src/http/app-state.ts';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.ts';
import {
  AUDIENCE,
  type SigningKey,
  signingKey,
  startTestProvider,
  type TestProvider,
} from './support/jwks-server.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

// Served on purpose without being an operation of the interface: the reference page's own files, which
// GET /docs describes.
const UNPUBLISHED = ['GET /docs/assets/{file}'];

interface DocumentedOperation {
  readonly security: readonly Record<string, readonly string[]>[];
}
const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, DocumentedOperation>>;
};

/** `METHOD path` of every operation the document publishes, with the scope it needs (none: no token). */
const published = new Map<string, string | undefined>(
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => key !== 'parameters')
      .map(([method, operation]): [string, string | undefined] => [
        `${method.toUpperCase()} ${path}`,
        operation.security[0]?.bearerAuth?.[0],
      ]),
  ),
);

/** The layers of the router the app serves with, read from the app's middleware. */
function servedLayers(): Router<AppState>['stack'] {
  const app = createApp({
    storage: openMemoryPlantStorage(),
    credentials: configuredCredentials(loadConfig({ API_TOKENS: TOKEN }), pino({ level: 'silent' })).checker,
    bodyLimit: 65_536,
    logger: pino({ level: 'silent' }),
  });
  const dispatch = app.middleware.find((middleware) => 'router' in middleware) as
    | { router: Router<AppState> }
    | undefined;
  if (dispatch === undefined) throw new Error('the app serves no @koa/router router');
  return dispatch.router.stack;
}

const layers = servedLayers();
/** `METHOD path` of every route the router serves, its path as OpenAPI writes it (the route's name). */
const served = layers.flatMap((layer) =>
  layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${layer.name}`),
);

describe('the router and the published document', () => {
  it('when the router is read, then each route is named by the OpenAPI path its pattern is made from', () => {
    expect(layers.length).toBeGreaterThan(0);
    for (const layer of layers) {
      expect(layer.name, String(layer.path)).toEqual(expect.stringMatching(/^\//));
      expect(layer.path).toBe(layer.name?.replace(/\{([^}]+)\}/g, ':$1'));
    }
  });

  it('when the router and the document are read, then every operation served is published and the reverse', () => {
    expect(served.filter((operation) => !UNPUBLISHED.includes(operation)).sort()).toEqual(
      [...published.keys()].sort(),
    );
    for (const operation of UNPUBLISHED) expect(served).toContain(operation);
  });

  it('when a route serves GET, then it serves HEAD too, as the document says', () => {
    for (const layer of layers.filter((route) => route.methods.includes('GET')))
      expect(layer.methods, String(layer.path)).toContain('HEAD');
  });
});

describe('the scope of each operation, as its answers show it', () => {
  let server: TestServer;
  let provider: TestProvider;
  let key: SigningKey;

  beforeAll(async () => {
    provider = await startTestProvider();
    key = await signingKey('ES256', 'router-and-document');
    provider.publish([key]);
    server = await startTestServer(openMemoryPlantStorage(), {
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
    });
    // Ready once the provider's keys are loaded: until then a JWT is answered 503.
    for (let tries = 0; tries < 200 && (await fetch(`${server.url}/readyz`)).status !== 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });

  const ask = (operation: string, authorization?: string, pathParameter = '1') => {
    const [method = '', path = ''] = operation.split(' ');
    return fetch(`${server.url}${path.replace(/\{[^}]+\}/g, pathParameter)}`, {
      method,
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
  };
  const withScopes = async (scope: string) => `Bearer ${await provider.token(key, { scope })}`;
  const EVERY_SCOPE = ['plants:read', 'plants:write'];

  it.each(served)(
    'when %s is asked without a token, then it answers 401 exactly when the document names a scope',
    async (operation) => {
      const response = await ask(operation);
      const scope = published.get(operation);
      if (scope === undefined) expect(response.status).not.toBe(401);
      else {
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
      }
    },
  );

  it.each([...published].filter(([, scope]) => scope !== undefined))(
    'when %s is asked with a JWT, then it needs the scope %s, and that one alone',
    async (operation, scope) => {
      const others = EVERY_SCOPE.filter((other) => other !== scope);
      const refused = await ask(operation, await withScopes(others.join(' ')));
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { message: string }).message).toBe(
        `the bearer token does not hold the scope ${scope}`,
      );
      const allowed = await ask(operation, await withScopes(scope as string));
      expect([401, 403]).not.toContain(allowed.status);
    },
  );

  it.each([...published].filter(([operation, scope]) => scope !== undefined && operation.includes('{')))(
    'when %s is asked with a bad path parameter and a JWT without its scope, then the scope (403) comes before the parameter (400)',
    async (operation, scope) => {
      const others = EVERY_SCOPE.filter((other) => other !== scope);
      expect((await ask(operation, await withScopes(others.join(' ')), 'x')).status).toBe(403);
      expect((await ask(operation, await withScopes(scope as string), 'x')).status).toBe(400);
    },
  );
});
