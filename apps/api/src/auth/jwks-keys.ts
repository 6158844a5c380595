import { trace } from '@opentelemetry/api';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTHeaderParameters } from 'jose';
import type { Logger } from 'pino';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-version.ts';
import { failWith, tracedGet } from '../tracing/fetch-span.ts';

/**
 * The identity provider's signing keys, kept here rather than fetched on the request path.
 *
 * jose's createRemoteJWKSet re-fetches on a request once its cache is older than its max age, and
 * fails that request when the fetch fails. Here the keys are refreshed in the background; a token
 * with an unknown `kid` causes at most one refetch per cooldown (a key rotation is picked up at
 * once, a flood of made-up kids costs one fetch); and while the provider is unreachable the keys
 * already known keep working for a bounded time (DESIGN.md: 24 h), with a warning. An answer over
 * 1 MiB is a failed fetch like any other: the keys already known stay.
 */
export interface KeyStoreOptions {
  /** The JWKS URL, or undefined to read `jwks_uri` from the issuer's discovery document. */
  readonly jwksUrl: string | undefined;
  readonly issuer: string;
  readonly logger: Logger;
  readonly fetch?: typeof globalThis.fetch;
  /** How often the keys are fetched again in the background. Default 5 minutes. */
  readonly refreshEveryMs?: number;
  /** How soon a failed fetch is tried again while no key was ever loaded. Default 5 s. */
  readonly retryEveryMs?: number;
  /** At most one refetch for unknown kids this often. Default 30 s. */
  readonly unknownKidCooldownMs?: number;
  /** How long known keys are used after the last successful fetch. Default 24 h. */
  readonly maxKeyAgeMs?: number;
  /** A fetch that takes longer is given up. Default 5 s. */
  readonly fetchTimeoutMs?: number;
  readonly now?: () => number;
}

/** No usable keys: never loaded yet, or older than the bound while the provider is unreachable. */
export class KeysUnavailableError extends Error {
  override readonly name = 'KeysUnavailableError';
}

export interface KeyStore {
  /** The key for a token's header, as jose's jwtVerify takes it. */
  getKey(header: JWTHeaderParameters): ReturnType<ReturnType<typeof createLocalJWKSet>>;
  /**
   * Whether keys were loaded once: /readyz (DESIGN.md). Past the bound of an outage JWTs get 503, but the
   * replica stays ready, so that static tokens keep reaching it behind a load balancer.
   */
  ready(): boolean;
  /** Seconds since the keys were last fetched; undefined before the first fetch. */
  ageSeconds(): number | undefined;
  /** Failed fetches so far. */
  failedFetches(): number;
  /** The first load (resolves whether or not it succeeded) and the background refresh. */
  start(): Promise<void>;
  stop(): void;
}

/**
 * The most of one answer of the provider (discovery, JWKS) that is read. A real key set is a few KiB;
 * a larger answer is refused rather than held in memory and parsed on the event loop.
 */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/** The body as text, read up to the cap: a declared length over it is refused before a byte is read. */
async function textWithinCap(response: Response, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_PROVIDER_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new Error(
      `${url} declares ${declared} bytes, over the ${MAX_PROVIDER_ANSWER_BYTES} read from a provider`,
    );
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  // Counted after decompression: a small compressed body cannot unpack past the cap either.
  for await (const chunk of response.body ?? []) {
    length += chunk.byteLength;
    // Leaving the loop cancels the stream: the rest is never downloaded.
    if (length > MAX_PROVIDER_ANSWER_BYTES)
      throw new Error(`${url} sent more than the ${MAX_PROVIDER_ANSWER_BYTES} bytes read from a provider`);
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

async function fetchJson(fetchOf: typeof globalThis.fetch, url: string, timeoutMs: number): Promise<unknown> {
  const response = await tracedGet(fetchOf, url, { timeoutMs, headers: { Accept: 'application/json' } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  return JSON.parse(await textWithinCap(response, url));
}

function isJwks(value: unknown): value is JSONWebKeySet {
  return Array.isArray((value as { keys?: unknown } | null)?.keys);
}

export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const fetchOf = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const refreshEveryMs = options.refreshEveryMs ?? 5 * 60_000;
  const retryEveryMs = options.retryEveryMs ?? 5_000;
  const cooldownMs = options.unknownKidCooldownMs ?? 30_000;
  const maxKeyAgeMs = options.maxKeyAgeMs ?? 24 * 60 * 60_000;
  const timeoutMs = options.fetchTimeoutMs ?? 5_000;
  const { logger } = options;

  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let loadedAt: number | undefined;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function jwksUrl(): Promise<string> {
    if (options.jwksUrl !== undefined) return options.jwksUrl;
    const discovery = `${options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = (await fetchJson(fetchOf, discovery, timeoutMs)) as { jwks_uri?: unknown } | null;
    if (typeof document?.jwks_uri !== 'string') throw new Error(`${discovery} names no jwks_uri`);
    return document.jwks_uri;
  }

  /** One fetch at a time; a failure keeps the keys already known. */
  function refresh(): Promise<void> {
    inFlight ??= (async () => {
      lastAttemptAt = now();
      try {
        // One span for the discovery document and the key set it names.
        await trace.getTracer(PACKAGE_NAME, PACKAGE_VERSION).startActiveSpan('JWKS refresh', async (span) => {
          try {
            const jwks = await fetchJson(fetchOf, await jwksUrl(), timeoutMs);
            if (!isJwks(jwks)) throw new Error('the JWKS has no "keys" array');
            keys = createLocalJWKSet(jwks);
            loadedAt = now();
          } catch (error) {
            failWith(span, error);
            throw error;
          } finally {
            span.end();
          }
        });
      } catch (error) {
        failures += 1;
        const age = loadedAt === undefined ? undefined : Math.round((now() - loadedAt) / 1000);
        logger.warn(
          { err: error, keyAgeSeconds: age },
          keys === undefined
            ? 'JWT keys could not be loaded: JWT access tokens are refused until they are'
            : 'JWT keys could not be refreshed: the keys already known stay in use',
        );
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  let stopped = false;
  function schedule(): void {
    if (stopped) return;
    // Until the keys were loaded once, readiness waits on them: try again soon.
    timer = setTimeout(
      () => void refresh().then(schedule),
      keys === undefined ? retryEveryMs : refreshEveryMs,
    );
    timer.unref();
  }

  const fresh = (): boolean => loadedAt !== undefined && now() - loadedAt <= maxKeyAgeMs;

  return {
    async getKey(header) {
      if (keys === undefined || !fresh())
        throw new KeysUnavailableError("the identity provider's keys are not available");
      try {
        return await keys(header);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || now() - lastAttemptAt < cooldownMs) throw error;
        // A kid not seen before: perhaps the provider rotated its keys. Once per cooldown.
        await refresh();
        return keys(header);
      }
    },
    ready: () => keys !== undefined,
    ageSeconds: () => (loadedAt === undefined ? undefined : (now() - loadedAt) / 1000),
    failedFetches: () => failures,
    async start() {
      await refresh();
      schedule();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
