import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './app-state.ts';
import { HttpError } from './http-error.ts';

const REALM = 'Bearer realm="plant-store"';

// RFC 6750: `Bearer 1*SP b64token`; the scheme name is case-insensitive.
const BEARER_CREDENTIAL = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Lets a request on only with `Authorization: Bearer <one of tokens>`; anything else is a 401 with
 * `WWW-Authenticate`. It reads headers only, so it runs before the body is read.
 */
export function bearerAuth(tokens: readonly string[]): Middleware<AppState> {
  const tokenDigests = tokens.map(sha256);
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const credential = BEARER_CREDENTIAL.exec(header)?.[1];
    if (credential === undefined) {
      const message =
        header === '' ? 'a bearer token is required' : 'the Authorization header must be "Bearer <token>"';
      throw new HttpError(401, message, { 'WWW-Authenticate': REALM });
    }
    // Hashing gives both sides one length, and checking every token without stopping early keeps
    // the time taken independent of how much of which token matched.
    const digest = sha256(credential);
    let matched = false;
    for (const tokenDigest of tokenDigests) matched = timingSafeEqual(digest, tokenDigest) || matched;
    if (!matched) {
      throw new HttpError(401, 'the bearer token is not valid', {
        'WWW-Authenticate': `${REALM}, error="invalid_token"`,
      });
    }
    await next();
  };
}
