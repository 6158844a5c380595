import type { Middleware } from 'koa';
import { fixedTokenSet, type TokenSet } from '../../auth/token-set.ts';
import type { AppState } from '../app-state.ts';
import { HttpError } from '../http-error.ts';
import { isRepeated } from '../repeated-header.ts';

const REALM = 'Bearer realm="plant-store"';

// RFC 6750: `Bearer 1*SP b64token`; the scheme name is case-insensitive.
const BEARER_CREDENTIAL = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Lets a request on only with `Authorization: Bearer <one of tokens>`; anything else is a 401 with
 * `WWW-Authenticate`; two Authorization headers are a 400 (RFC 6750's invalid_request). It reads
 * headers only, so it runs before the body is read.
 */
export function bearerAuth(tokens: readonly string[] | TokenSet): Middleware<AppState> {
  const accepted = 'matches' in tokens ? tokens : fixedTokenSet(tokens);
  return async (ctx, next) => {
    if (isRepeated(ctx.req.rawHeaders, 'authorization')) {
      throw new HttpError(400, 'the Authorization header must be sent once', {
        'WWW-Authenticate': `${REALM}, error="invalid_request"`,
      });
    }
    const header = ctx.get('Authorization');
    const credential = BEARER_CREDENTIAL.exec(header)?.[1];
    if (credential === undefined) {
      const message =
        header === '' ? 'a bearer token is required' : 'the Authorization header must be "Bearer <token>"';
      throw new HttpError(401, message, { 'WWW-Authenticate': REALM });
    }
    // Constant time: see matchesAnyDigest in token-set.ts.
    if (!accepted.matches(credential)) {
      throw new HttpError(401, 'the bearer token is not valid', {
        'WWW-Authenticate': `${REALM}, error="invalid_token"`,
      });
    }
    await next();
  };
}
