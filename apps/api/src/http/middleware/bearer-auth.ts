import { isRepeated } from '@plant-store/http-hardening';
import type { Middleware } from 'koa';
import type { CredentialChecker } from '../../auth/credentials.ts';
import type { AppState } from '../app-state.ts';
import { HttpError, RETRY_LATER } from '../http-error.ts';

const REALM = 'Bearer realm="plant-store"';

// RFC 6750: `Bearer 1*SP b64token`; the scheme name is case-insensitive.
const BEARER_CREDENTIAL = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** An RFC 6750 quoted-string may hold neither `"` nor `\`: descriptions are the service's own words. */
const quoted = (text: string): string => text.replace(/["\\]/g, "'");

/**
 * Lets a request on only with `Authorization: Bearer <credential>` that the checker accepts and that
 * holds `scope` (RFC 6750): none or a malformed header 401; a token that fails a check 401
 * `invalid_token` naming it; a valid token without the scope 403 `insufficient_scope`; two
 * Authorization headers 400 `invalid_request`; the provider's keys unavailable 503. It reads
 * headers only, so it runs before the body is read.
 */
export function bearerAuth(checker: CredentialChecker, scope: string): Middleware<AppState> {
  return async (ctx, next) => {
    if (isRepeated(ctx.req.rawHeaders, 'authorization')) {
      throw new HttpError(400, 'the Authorization header must be sent once', {
        'WWW-Authenticate': `${REALM}, error="invalid_request"`,
      });
    }
    const header = ctx.req.headers.authorization ?? '';
    const credential = BEARER_CREDENTIAL.exec(header)?.[1];
    if (credential === undefined) {
      const message =
        header === '' ? 'a bearer token is required' : 'the Authorization header must be "Bearer <token>"';
      throw new HttpError(401, message, { 'WWW-Authenticate': REALM });
    }
    const checked = await checker.check(credential);
    if (checked.outcome === 'unavailable') {
      throw new HttpError(
        503,
        "the identity provider's keys are not available yet, try again later",
        RETRY_LATER,
      );
    }
    if (checked.outcome === 'rejected') {
      // A static token is only ever "not valid": the description of a JWT check says nothing of it.
      const invalid = checked.description === 'the bearer token is not valid';
      throw new HttpError(
        401,
        invalid ? checked.description : `the bearer token is not valid: ${checked.description}`,
        {
          'WWW-Authenticate': invalid
            ? `${REALM}, error="invalid_token"`
            : `${REALM}, error="invalid_token", error_description="${quoted(checked.description)}"`,
        },
      );
    }
    ctx.state.caller = checked.caller;
    if (checked.scopes !== 'all' && !checked.scopes.has(scope)) {
      throw new HttpError(403, `the bearer token does not hold the scope ${scope}`, {
        'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${quoted(scope)}"`,
      });
    }
    await next();
  };
}
