import { type JwtVerifier, KeysUnavailableError, TokenRejectedError } from './jwt-verifier.ts';
import { matchesAnyDigest, sha256, type TokenSet } from './token-set.ts';

/** The scopes of DESIGN.md: reading plants, and creating or deleting them. */
export interface Scopes {
  readonly read: string;
  readonly write: string;
}

/** The scopes a JWT needs when JWT_SCOPE_READ and JWT_SCOPE_WRITE are not set, as the document publishes them. */
export const DEFAULT_SCOPES: Scopes = { read: 'plants:read', write: 'plants:write' };

/** Who made a request, as its log line names it: never the token itself. */
export interface Caller {
  /** `static`: a configured token (a short digest names it); `jwt`: an access token of the provider. */
  readonly kind: 'static' | 'jwt';
  readonly sub?: string;
  readonly clientId?: string;
  /** The first 12 hex digits of a static token's SHA-256. */
  readonly tokenDigest?: string;
}

export type CredentialOutcome =
  | { readonly outcome: 'accepted'; readonly caller: Caller; readonly scopes: ReadonlySet<string> | 'all' }
  /** 401 invalid_token, with the check that failed. */
  | { readonly outcome: 'rejected'; readonly description: string }
  /** The provider's keys were never loaded, or are too old: 503, try again later. */
  | { readonly outcome: 'unavailable' };

/**
 * The one verifier the app is given: the static tokens (API_TOKENS, API_TOKENS_FILE, compared in
 * constant time) and, when JWT_ISSUER is set, the provider's access tokens. A static token holds
 * every scope. A credential that is a static token is never also read as a JWT.
 */
export interface CredentialChecker {
  check(token: string): Promise<CredentialOutcome>;
  readonly scopes: Scopes;
  /** Whether it can check every kind of credential it is configured for (the JWT keys are loaded). */
  ready(): boolean;
  /** False when neither a static token nor JWT is configured: every protected request is a 401. */
  readonly configured: boolean;
}

export interface CredentialCheckerOptions {
  readonly staticTokens: TokenSet;
  readonly hasStaticTokens: boolean;
  readonly jwt?: { readonly verifier: JwtVerifier; ready(): boolean };
  /** The clock a remembered JWT's exp is compared with. Default Date.now. */
  readonly now?: () => number;
  readonly scopes: Scopes;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Accepted credentials remembered at most: a few MB of outcomes, far more clients than a replica serves. */
const REMEMBERED_CREDENTIALS = 10_000;

interface Remembered {
  readonly accepted: CredentialOutcome;
  /** A JWT's exp; a static token's outcome holds until the tokens change. */
  readonly untilMs: number;
}

/** A Map in order of last use: a hit moves its entry to the end, and the first entry goes when full. */
function leastRecentlyUsed(size: number) {
  const entries = new Map<string, Remembered>();
  return {
    get(key: string, nowMs: number): CredentialOutcome | undefined {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (nowMs >= entry.untilMs) return undefined;
      entries.set(key, entry);
      return entry.accepted;
    },
    set(key: string, entry: Remembered): void {
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > size) entries.delete(entries.keys().next().value as string);
    },
    clear: () => entries.clear(),
  };
}

const REJECTED: CredentialOutcome = { outcome: 'rejected', description: 'the bearer token is not valid' };

/**
 * A client sends the same credential on every request: its outcome is remembered by the credential's
 * SHA-256, so that the next requests cost a digest and a Map lookup instead of a comparison with every
 * static token, or a signature check (DESIGN.md: "bounded, keyed by a digest, never past `exp`"). Only accepted
 * credentials, so a hit tells the sender nothing its 2xx does not; a JWT never past its exp; at most
 * REMEMBERED_CREDENTIALS, the least recently used forgotten first. When the static tokens change
 * (API_TOKENS_FILE rewritten), every outcome is forgotten: a token taken out is refused from then on,
 * and a JWT that became a static token is one.
 */
export function createCredentialChecker(options: CredentialCheckerOptions): CredentialChecker {
  const { staticTokens, jwt, scopes } = options;
  const now = options.now ?? Date.now;
  const remembered = leastRecentlyUsed(REMEMBERED_CREDENTIALS);
  let rememberedFor: readonly Buffer[] | undefined;

  return {
    scopes,
    configured: options.hasStaticTokens || jwt !== undefined,
    ready: () => jwt === undefined || jwt.ready(),
    async check(token) {
      const digests = staticTokens.digests();
      if (digests !== rememberedFor) {
        remembered.clear();
        rememberedFor = digests;
      }
      const digest = sha256(token);
      const key = digest.toString('base64');
      const known = remembered.get(key, now());
      if (known !== undefined) return known;
      if (matchesAnyDigest(digest, digests)) {
        const accepted: CredentialOutcome = {
          outcome: 'accepted',
          caller: { kind: 'static', tokenDigest: digest.toString('hex', 0, 6) },
          scopes: 'all',
        };
        remembered.set(key, { accepted, untilMs: Number.POSITIVE_INFINITY });
        return accepted;
      }
      if (jwt === undefined || !JWT_SHAPE.test(token)) return REJECTED;
      try {
        const principal = await jwt.verifier.verify(token);
        const accepted: CredentialOutcome = {
          outcome: 'accepted',
          caller: {
            kind: 'jwt',
            ...(principal.subject === undefined ? {} : { sub: principal.subject }),
            ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
          },
          scopes: principal.scopes,
        };
        // Not when the tokens changed during the verification: it was checked against the old ones.
        if (rememberedFor === digests) remembered.set(key, { accepted, untilMs: principal.expiresAtMs });
        return accepted;
      } catch (error) {
        if (error instanceof TokenRejectedError) return { outcome: 'rejected', description: error.message };
        if (error instanceof KeysUnavailableError) return { outcome: 'unavailable' };
        throw error;
      }
    },
  };
}
