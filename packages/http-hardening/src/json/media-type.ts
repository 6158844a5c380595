import { parse } from 'content-type';

/**
 * Whether a Content-Type header names JSON the service reads: `application/json`, any case, with
 * parameters allowed and a `charset`, if given, of UTF-8 (RFC 8259 JSON is UTF-8 only).
 *
 * The header is parsed by `content-type` (jshttp, what Koa itself uses), in time linear in its
 * length: the regular expression it replaced backtracked exponentially on `application/json; ; ; x`,
 * and Node lets a header run to 16 KB.
 */
export function isUtf8JsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  let mediaType: ReturnType<typeof parse>;
  try {
    mediaType = parse(header);
  } catch {
    // Not a media type by RFC 9110's grammar.
    return false;
  }
  if (mediaType.type !== 'application/json') return false;
  const charset = mediaType.parameters.charset;
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}
