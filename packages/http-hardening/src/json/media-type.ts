import { parse } from 'content-type';

/**
 * Whether a Content-Type header names JSON the service reads: `mediaType` (`application/json` unless
 * told, or another JSON type such as `application/merge-patch+json`, given in lower case), any case,
 * with parameters allowed and a `charset`, if given, of UTF-8 (RFC 8259 JSON is UTF-8 only).
 *
 * The header is parsed by `content-type` (jshttp, what Koa itself uses), in time linear in its
 * length: the regular expression it replaced backtracked exponentially on `application/json; ; ; x`,
 * and Node lets a header run to 16 KB.
 */
export function isUtf8JsonMediaType(header: string | undefined, mediaType = 'application/json'): boolean {
  if (header === undefined) return false;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(header);
  } catch {
    // Not a media type by RFC 9110's grammar.
    return false;
  }
  if (parsed.type !== mediaType) return false;
  const charset = parsed.parameters.charset;
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}
