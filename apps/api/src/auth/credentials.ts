import { type JwtVerifier, KeysUnavailableError, TokenRejectedError } from './jwt-verifier.ts';
import { fixedTokenSet, type TokenSet } from './token-set.ts';

/** The scopes of DESIGN.md: reading plants, and creating or deleting them. */
export interface Scopes {
  readonly read: string;
  readonly write: string;
}

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

/** JWTs accepted lately, remembered by their text: at most this many, none longer than MAX_RECENT_JWT_LENGTH. */
const RECENT_JWTS = 256;
const MAX_RECENT_JWT_LENGTH = 4096;

interface RecentJwt {
  readonly accepted: CredentialOutcome;
  readonly expiresAtMs: number;
}

export function createCredentialChecker(options: CredentialCheckerOptions): CredentialChecker {
  const { staticTokens, jwt, scopes } = options;
  const now = options.now ?? Date.now;
  // A client sends the same access token on every request until it expires: its outcome is kept by
  // the token's text, so that the next requests cost one Map lookup instead of two SHA-256s of the
  // token (the static tokens' check, then the verifier's cache), a pattern match and a new outcome
  // (~2 us a request). Only accepted tokens, only until their exp, and all forgotten when the static
  // tokens change: a token that became a static token is then one, as if it had never been seen.
  let recent = new Map<string, RecentJwt>();
  let recentFor: object | undefined;

  return {
    scopes,
    configured: options.hasStaticTokens || jwt !== undefined,
    ready: () => jwt === undefined || jwt.ready(),
    async check(token) {
      if (jwt !== undefined) {
        const version = staticTokens.version();
        if (version !== recentFor) {
          recent = new Map();
          recentFor = version;
        }
        const remembered = recent.get(token);
        if (remembered !== undefined) {
          if (now() < remembered.expiresAtMs) return remembered.accepted;
          recent.delete(token);
        }
      }
      const name = staticTokens.nameOf(token);
      if (name !== undefined) {
        return {
          outcome: 'accepted',
          caller: { kind: 'static', tokenDigest: name },
          scopes: 'all',
        };
      }
      if (jwt === undefined || !JWT_SHAPE.test(token)) {
        return { outcome: 'rejected', description: 'the bearer token is not valid' };
      }
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
        if (token.length <= MAX_RECENT_JWT_LENGTH && now() < principal.expiresAtMs) {
          if (recent.size >= RECENT_JWTS) recent.clear();
          recent.set(token, { accepted, expiresAtMs: principal.expiresAtMs });
        }
        return accepted;
      } catch (error) {
        if (error instanceof TokenRejectedError) return { outcome: 'rejected', description: error.message };
        if (error instanceof KeysUnavailableError) return { outcome: 'unavailable' };
        throw error;
      }
    },
  };
}

/** The scopes DESIGN.md names by default (JWT_SCOPE_READ, JWT_SCOPE_WRITE). */
export const DEFAULT_SCOPES: Scopes = { read: 'plants:read', write: 'plants:write' };

/** Static tokens alone, fixed: for tests, and for embedding the app without JWT. */
export function staticCredentials(
  tokens: readonly string[],
  scopes: Scopes = DEFAULT_SCOPES,
): CredentialChecker {
  return createCredentialChecker({
    staticTokens: fixedTokenSet(tokens),
    hasStaticTokens: tokens.length > 0,
    scopes,
  });
}
