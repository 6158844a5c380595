// RFC 9110 media type: type "/" subtype *( OWS ";" OWS parameter ), parameter values token or quoted-string.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(
  `^(${TOKEN})/(${TOKEN})((?:[ \\t]*;[ \\t]*(?:${TOKEN}=(?:${TOKEN}|"(?:[^"\\\\]|\\\\.)*"))?)*)[ \\t]*$`,
);
const PARAMETER = new RegExp(`;[ \\t]*(${TOKEN})=(${TOKEN}|"(?:[^"\\\\]|\\\\.)*")`, 'g');

/**
 * Whether a Content-Type header names JSON the service reads: `application/json`, any case, with
 * parameters allowed and a `charset`, if given, of UTF-8 (RFC 8259 JSON is UTF-8 only).
 */
export function isUtf8JsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const match = MEDIA_TYPE.exec(header);
  if (match === null) return false;
  const [, type = '', subtype = '', parameters = ''] = match;
  if (type.toLowerCase() !== 'application' || subtype.toLowerCase() !== 'json') return false;
  for (const [, name = '', rawValue = ''] of parameters.matchAll(PARAMETER)) {
    if (name.toLowerCase() !== 'charset') continue;
    const value = rawValue.startsWith('"') ? rawValue.slice(1, -1).replace(/\\(.)/g, '$1') : rawValue;
    if (value.toLowerCase() !== 'utf-8') return false;
  }
  return true;
}
