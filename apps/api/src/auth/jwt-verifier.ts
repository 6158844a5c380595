import { errors, type JWTPayload, jwtVerify } from 'jose';
import { type KeyStore, KeysUnavailableError } from './jwks-keys.ts';

/** The JWT settings of DESIGN.md ("JWT access tokens"). */
export interface JwtSettings {
  /** `iss` must be exactly this. */
  readonly issuer: string;
  /** `aud` must contain this. */
  readonly audience: string;
  /** Never `none`, never an HMAC algorithm (a provider's public key is not a secret). */
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  /** RFC 9068's profile: `typ: at+jwt`, and `sub`, `client_id`, `iat`, `jti` present. */
  readonly strictProfile: boolean;
}

/** Who a verified token speaks for, and what it may do. */
export interface JwtPrincipal {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly scopes: ReadonlySet<string>;
  /** The token's `exp`, in milliseconds: it holds only before then. */
  readonly expiresAtMs: number;
}

/** A token that fails a check; the message names the check (it becomes `error_description`). */
export class TokenRejectedError extends Error {
  override readonly name = 'TokenRejectedError';
}

export { KeysUnavailableError };

/** Scopes from `scope` (space-separated, RFC 9068 and 8693) or `scp` (a string or an array: Entra ID, Okta). */
export function scopesOf(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const scope of value.split(' ')) if (scope !== '') scopes.add(scope);
    } else if (Array.isArray(value)) {
      for (const item of value) add(item);
    }
  };
  add(payload.scope);
  add(payload.scp);
  return scopes;
}

/** What a jose error says, as the check that failed. Never the token, never a key. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired (exp)';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `the token has no ${error.claim} claim`;
    // jose's "check_failed" is a claim compared and refused; "invalid", one that is not a NumericDate at all.
    if (error.reason === 'check_failed') {
      if (error.claim === 'nbf') return 'the token is not valid yet (nbf)';
      if (error.claim === 'iss') return 'the token was issued by another issuer (iss)';
      if (error.claim === 'aud') return 'the token is for another audience (aud)';
      if (error.claim === 'typ') return 'the token is not an access token (typ must be at+jwt)';
    }
    return `the token's ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'the token is signed with an algorithm that is not allowed';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is not valid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with an unknown key (kid)';
  if (error instanceof errors.JWKSMultipleMatchingKeys)
    return 'the token names no key the provider has exactly (kid)';
  return 'the token is malformed';
}

const HMAC = /^HS/;

/** Verifies JWT access tokens against the provider's keys (the credential checker remembers the accepted ones). */
export interface JwtVerifier {
  /** The token's principal; throws TokenRejectedError (naming the check) or KeysUnavailableError. */
  verify(token: string): Promise<JwtPrincipal>;
}

export interface JwtVerifierOptions extends JwtSettings {
  readonly keys: KeyStore;
}

export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  const algorithms = options.algorithms.filter((algorithm) => algorithm !== 'none' && !HMAC.test(algorithm));
  if (algorithms.length === 0) throw new Error('no asymmetric JWT algorithm is allowed');

  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, (header) => options.keys.getKey(header), {
          issuer: options.issuer,
          audience: options.audience,
          algorithms,
          clockTolerance: options.clockToleranceSeconds,
          requiredClaims: options.strictProfile ? ['exp', 'iat', 'sub', 'client_id', 'jti'] : ['exp'],
          ...(options.strictProfile ? { typ: 'at+jwt' } : {}),
        }));
      } catch (error) {
        if (error instanceof KeysUnavailableError) throw error;
        throw new TokenRejectedError(describe(error));
      }
      return {
        subject: typeof payload.sub === 'string' ? payload.sub : undefined,
        clientId: typeof payload.client_id === 'string' ? payload.client_id : undefined,
        scopes: scopesOf(payload),
        // Never past exp: the clock tolerance is not extended to remembered tokens.
        expiresAtMs: (payload.exp as number) * 1000,
      };
    },
  };
}
