import type { IncomingMessage } from 'node:http';
import { whileReadingBody } from '../connection/turns.ts';
import { HttpError } from '../http-error.ts';
import { isUtf8JsonMediaType } from '../json/media-type.ts';
import { parseJsonShallow } from '../json/shallow.ts';
import type { KoaContext, KoaMiddleware } from './koa-context.ts';
import { isRepeated } from './repeated-header.ts';
import { EXPECT_CONTINUE } from './request-head.ts';

/** The largest body jsonBody reads unless told otherwise, in bytes. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface JsonBodyOptions {
  /** The largest body, in bytes: a larger one is refused with 413. Default DEFAULT_BODY_LIMIT (64 KiB). */
  readonly limit?: number;
  /** The members of a top-level object to build; the others are checked and left out (see parseJsonShallow). */
  readonly members: Iterable<string>;
  /**
   * The media type the body must have, in lower case: `application/json` (the default) or another JSON
   * one, such as `application/merge-patch+json` (RFC 7396) for a PATCH.
   */
  readonly mediaType?: string;
}

/** Where jsonBody puts what it read. */
export interface JsonBodyState {
  body?: unknown;
}

// The rest of a refused body is not read: closing the connection is cheaper than draining it.
const CLOSE = { Connection: 'close' } as const;

// type "/" subtype, as RFC 9110 writes a media type's tokens, in lower case.
const MEDIA_TYPE = /^[a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+$/;

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `the request body is larger than ${limit} bytes`, CLOSE);
}

/**
 * Reads the whole body, refusing it with 413 as soon as it grows past the limit. The rest is
 * left unread, not destroyed: the socket must live on to carry the answer.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let stopWatching = (): void => {};
    const stop = (): void => {
      settled = true;
      stopWatching();
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      reject(tooLarge(limit));
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    // The client went away mid-body ('close' without 'end'). These listeners stay, so that a late
    // error never goes unhandled. 'close' comes after every request, so once the body is read they
    // return at once: building an error there cost 9% of the service's CPU.
    const onCutOff = (): void => {
      if (settled) return;
      stop();
      reject(new HttpError(400, 'the request body was not received completely', CLOSE));
    };
    req.on('error', onCutOff);
    req.once('close', onCutOff);
    // The parser gave up on the rest (a malformed chunk, REQUEST_TIMEOUT_MS): this request answers
    // that refusal itself, so that its log line says what the client was told.
    stopWatching = whileReadingBody(req, (refusal) => {
      if (settled) return;
      stop();
      reject(new HttpError(refusal.status, refusal.message, CLOSE));
    });
  });
}

/**
 * With `Expect: 100-continue` the client waits for a go-ahead before it sends the body: jsonBody gives
 * it once the media type and declared size were accepted (and whatever ran before it, such as the
 * credential), never before a refusal. A route that reads its body another way calls this first.
 */
export function allowBody(ctx: Pick<KoaContext, 'req' | 'res'>): void {
  const expect = ctx.req.headers.expect;
  if (expect !== undefined && EXPECT_CONTINUE.test(expect) && !ctx.res.headersSent) ctx.res.writeContinue();
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'the request body is not valid UTF-8');
  }
  // RFC 8259 forbids a byte order mark in JSON sent over a network; refused rather than skipped.
  if (text.startsWith('\uFEFF'))
    throw new HttpError(400, 'the request body must not start with a byte order mark');
  return text;
}

function parseJson(text: string, members: ReadonlySet<string>): unknown {
  try {
    return parseJsonShallow(text, members);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new HttpError(400, `the request body is not valid JSON: ${error.message}`);
  }
}

/**
 * Puts the request's JSON body in ctx.state.body, checking in this order: media type (one Content-Type,
 * else 400; `mediaType` in UTF-8, unencoded, else 415, with `Accept-Patch` naming it for a PATCH), size
 * (413), then UTF-8 and JSON (400). Of a top-level object only `members` are built, the rest checked and
 * ignored; integers are exact bigints (see ../json/shallow.ts). A body over the limit is not read
 * further: its answer closes the connection.
 */
export function jsonBody(options: JsonBodyOptions): KoaMiddleware<JsonBodyState> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  if (!(Number.isSafeInteger(limit) && limit >= 0))
    throw new RangeError(`jsonBody: limit must be a whole number of bytes, not ${limit}`);
  const mediaType = options.mediaType ?? 'application/json';
  if (!MEDIA_TYPE.test(mediaType))
    throw new RangeError(`jsonBody: mediaType must be a media type in lower case, not ${mediaType}`);
  // RFC 5789 section 2.2: a PATCH refused for its media type says which patch documents are taken.
  const acceptPatch = { 'Accept-Patch': mediaType };
  const unsupported = (ctx: KoaContext, message: string): HttpError =>
    new HttpError(415, message, ctx.req.method === 'PATCH' ? acceptPatch : {});
  // One set for every request: the reader works out what it needs of it once.
  const members: ReadonlySet<string> = new Set(options.members);
  return async (ctx, next) => {
    if (isRepeated(ctx.req.rawHeaders, 'content-type')) {
      throw new HttpError(400, 'the Content-Type header must be sent once');
    }
    if (!isUtf8JsonMediaType(ctx.req.headers['content-type'], mediaType)) {
      throw unsupported(ctx, `the request body must be ${mediaType} (UTF-8)`);
    }
    const encoding = ctx.req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw unsupported(ctx, 'the request body must not be encoded: Content-Encoding is not supported');
    }
    const declaredLength = ctx.req.headers['content-length'];
    if (declaredLength !== undefined && Number(declaredLength) > limit) throw tooLarge(limit);

    allowBody(ctx);
    const text = decodeUtf8(await readBody(ctx.req, limit));
    if (/^[ \t\n\r]*$/.test(text)) throw new HttpError(400, 'request body is required');
    ctx.state.body = parseJson(text, members);
    await next();
  };
}
