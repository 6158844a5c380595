import { isIPv6 } from 'node:net';
import { HttpError } from '../http-error.ts';
import type { KoaMiddleware } from './koa-context.ts';
import { isRepeated } from './repeated-header.ts';

// Node's own test (lib/_http_server.js) of the one expectation HTTP/1.1 defines.
export const EXPECT_CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** The answer to a request line whose version is not HTTP/1.0 or HTTP/1.1, here and from the parser. */
export const VERSION_NOT_SUPPORTED = {
  status: 505,
  message: 'the HTTP version is not supported: only HTTP/1.0 and HTTP/1.1 are',
} as const;

// RFC 9110 7.2 and RFC 3986 3.2.2: Host = uri-host [ ":" port ], the host an IP-literal in brackets or a
// reg-name (IPv4 is one); an "http" URI's host is never empty (RFC 9110 4.2.1).
const HOST = /^(?:\[([^\]]*)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::[0-9]*)?$/;
const CLOSE = { Connection: 'close' } as const;
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

function isValidHost(value: string): boolean {
  const match = HOST.exec(value);
  if (match === null) return false;
  const literal = match[1];
  return literal === undefined || isIPv6(literal) || IP_FUTURE.test(literal);
}

/** The transfer codings of a request, in the order applied, lower case (RFC 9110 5.6.1: empty elements ignored). */
function codingsOf(header: string): string[] {
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
}

/**
 * The checks of a request's head that Node would otherwise answer itself, with an empty body, or not
 * make at all (RFC 9112), before anything of the body is read. Thrown as an HttpError, they are answered
 * by the app's error handler like every other failure (its body, its log line):
 *
 * - an HTTP version other than 1.0 and 1.1 (Node's parser lets HTTP/0.9 and HTTP/2.0 through): 505;
 * - no `Host` in HTTP/1.1, two of them, or one that is not `host[:port]` (RFC 9112 3.2): 400;
 * - a request target with a `#` fragment, which is never sent (RFC 9112 3.2): 400;
 * - transfer codings without `chunked` last, or with it twice: 400 (RFC 9112 6.3; Node's parser refuses
 *   most of them itself); any other coding before it: 501 (RFC 9112 6.1), as bodies are never decoded
 *   (read as plain, they would be stored);
 * - an `Expect` other than 100-continue: 417.
 *
 * A missing Host reaches it from a server created with `requireHostHeader: false` (else Node answers
 * 400 itself, without a body); an `Expect` from one hardened by hardenServer (else Node answers 417).
 */
export function checkRequestHead(): KoaMiddleware {
  return async (ctx, next) => {
    const { req } = ctx;
    if (req.httpVersionMajor !== 1 || req.httpVersionMinor > 1) {
      // How the rest of the connection is framed in that version is anyone's guess.
      throw new HttpError(VERSION_NOT_SUPPORTED.status, VERSION_NOT_SUPPORTED.message, CLOSE);
    }
    const { host } = req.headers;
    if (host === undefined) {
      if (req.httpVersionMinor >= 1) throw new HttpError(400, 'the Host header is required');
    } else {
      // Node keeps the first Host in req.headers: a second one is seen in the raw list only.
      if (isRepeated(req.rawHeaders, 'host')) throw new HttpError(400, 'the Host header must be sent once');
      if (!isValidHost(host))
        throw new HttpError(400, 'the Host header must be a host name or address, with an optional port');
    }
    if (req.url?.includes('#')) throw new HttpError(400, 'the request target must not have a fragment (#)');
    const transferEncoding = req.headers['transfer-encoding'];
    if (transferEncoding !== undefined) {
      const codings = codingsOf(transferEncoding);
      // Without chunked last, and once, where the body ends cannot be known.
      if (codings.at(-1) !== 'chunked' || codings.indexOf('chunked') !== codings.length - 1)
        throw new HttpError(
          400,
          'the body cannot be framed: Transfer-Encoding must end with chunked, once',
          CLOSE,
        );
      if (codings.length > 1)
        throw new HttpError(
          501,
          'the only Transfer-Encoding supported is chunked: bodies are never decoded',
          CLOSE,
        );
      // RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing: served, then closed.
      if (req.httpVersionMinor === 0) ctx.set('Connection', 'close');
    }
    const expect = req.headers.expect;
    if (expect !== undefined && !EXPECT_CONTINUE.test(expect)) {
      throw new HttpError(417, 'the only expectation supported is "Expect: 100-continue"');
    }
    await next();
  };
}
