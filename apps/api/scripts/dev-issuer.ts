// `pnpm dev:issuer`: a local OpenID Connect provider (oidc-provider, a certified one) for trying the
// service's JWT access tokens without an identity provider of your own. It prints the settings to start
// the service with, an access token with both scopes and the curl that gets more, then serves until
// Ctrl-C. Its keys are made at each start, so a token outlives neither it nor its restart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Adapter } from 'oidc-provider';

export interface IssuerClient {
  readonly client_id: string;
  readonly client_secret: string;
  /** The scopes it may ask for, space-separated. */
  readonly scope: string;
}

export interface IssuerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** The resource indicator the tokens are for (an absolute URI, RFC 8707), asked for or defaulted to. */
  readonly resource: string;
  /** The tokens' `aud`: the service's JWT_AUDIENCE. */
  readonly audience: string;
  readonly clients: readonly IssuerClient[];
  readonly accessTokenTtlSeconds: number;
}

export interface RunningIssuer {
  /** The service's JWT_ISSUER: the tokens' `iss`, and where discovery is. */
  readonly issuer: string;
  /** An access token from the token endpoint, by the client credentials grant, for the resource. */
  accessToken(clientId: string, scope: string): Promise<string>;
  close(): Promise<void>;
}

// Keeps nothing: the tokens are JWTs a resource server verifies with the keys alone, and no user signs in,
// so there is no session, grant or code to keep (oidc-provider's own memory adapter warns it is no store).
class NothingKept implements Adapter {
  async upsert() {}
  async find() {}
  async findByUserCode() {}
  async findByUid() {}
  async consume() {}
  async destroy() {}
  async revokeByGrantId() {}
}

/**
 * An oidc-provider on `host:port` that gives RFC 9068 JWT access tokens (ES256, key made now) to its
 * clients by the client credentials grant, with the scopes asked for among those the client has.
 */
export async function startIssuer(options: IssuerOptions): Promise<RunningIssuer> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const issuer = `http://${options.host}:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const scopes = [...new Set(options.clients.flatMap((client) => client.scope.split(' ')))];
  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      ...client,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    })),
    scopes: ['openid', ...scopes],
    jwks: {
      keys: [{ ...(await exportJWK(privateKey)), kid: `dev-${Date.now()}`, alg: 'ES256', use: 'sig' }],
    },
    adapter: NothingKept,
    ttl: { ClientCredentials: options.accessTokenTtlSeconds },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        getResourceServerInfo: () => ({
          scope: scopes.join(' '),
          audience: options.audience,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtlSeconds,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    async accessToken(clientId, scope) {
      const client = options.clients.find((candidate) => candidate.client_id === clientId);
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: client?.client_secret ?? '',
          scope,
        }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (body.access_token === undefined)
        throw new Error(`the provider gave no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The settings `pnpm dev:issuer` runs with: its port from DEV_ISSUER_PORT (0: any free one). */
function devOptions(env: NodeJS.ProcessEnv): IssuerOptions {
  const port = Number(env.DEV_ISSUER_PORT ?? '3001');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`DEV_ISSUER_PORT must be a whole number from 0 to 65535, not "${env.DEV_ISSUER_PORT}"`);
  return {
    host: '127.0.0.1',
    port,
    resource: 'urn:plant-store',
    audience: 'plant-store',
    clients: [
      { client_id: 'plant-importer', client_secret: 'dev-secret', scope: 'plants:read plants:write' },
      { client_id: 'plant-reader', client_secret: 'dev-secret', scope: 'plants:read' },
    ],
    accessTokenTtlSeconds: 3600,
  };
}

async function main(): Promise<void> {
  let options: IssuerOptions;
  let running: RunningIssuer;
  try {
    options = devOptions(process.env);
    running = await startIssuer(options);
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const reason = inUse ? 'its port is in use: set DEV_ISSUER_PORT to a free one' : (error as Error).message;
    process.stderr.write(`dev:issuer cannot start: ${reason}\n`);
    process.exit(1);
  }
  const [writer, reader] = options.clients as [IssuerClient, IssuerClient];
  const token = await running.accessToken(writer.client_id, writer.scope);
  const tokenCurl = (client: IssuerClient) =>
    `curl -s ${running.issuer}/token -d grant_type=client_credentials -d client_id=${client.client_id} ` +
    `-d client_secret=${client.client_secret} -d 'scope=${client.scope}'`;
  process.stdout.write(
    [
      `A local OpenID Connect provider (oidc-provider) at ${running.issuer}, with keys made for this run.`,
      'It serves until Ctrl-C; its tokens are valid for an hour, and not after it restarts.',
      '',
      'Start the service with its settings, in another terminal:',
      '',
      `   JWT_ISSUER=${running.issuer} JWT_AUDIENCE=${options.audience} pnpm start`,
      '',
      `An access token of ${writer.client_id}, with ${writer.scope}:`,
      '',
      `   TOKEN=${token}`,
      '',
      'Then: curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/plants',
      '',
      `More tokens, by the client credentials grant (the answer's access_token; jq -r .access_token takes it):`,
      '',
      `   ${tokenCurl(writer)}`,
      '',
      `${reader.client_id} has ${reader.scope} only (a create with its token is a 403):`,
      '',
      `   ${tokenCurl(reader)}`,
      '',
      '',
    ].join('\n'),
  );
  const stop = () => {
    running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.main) await main();
