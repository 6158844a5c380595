import type { Middleware } from 'koa';
import type { AppState } from '../app-state.ts';
import { HttpError } from '../http-error.ts';

// Node's own test (lib/_http_server.js) of the one expectation HTTP/1.1 defines.
export const EXPECT_CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * The checks of a request's head that Node would otherwise answer itself, with an empty body:
 * HTTP/1.1 without `Host` (400, RFC 9112 section 3.2) and an `Expect` other than 100-continue
 * (417). Here they get the JSON Error body, a request id and a log line like every answer.
 */
export function checkRequestHead(): Middleware<AppState> {
  return async (ctx, next) => {
    const { req } = ctx;
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      throw new HttpError(400, 'the Host header is required');
    }
    const expect = req.headers.expect;
    if (expect !== undefined && !EXPECT_CONTINUE.test(expect)) {
      throw new HttpError(417, 'the only expectation supported is "Expect: 100-continue"');
    }
    await next();
  };
}
