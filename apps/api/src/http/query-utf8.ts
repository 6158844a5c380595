// Koa reads a query with URLSearchParams, which puts U+FFFD where a percent-escape is not UTF-8
// (`tag=%FF`): a silent repair, and a tag then asked for that the client never sent. A value that holds
// U+FFFD is read again from the raw query here, so that only a U+FFFD the client sent itself is taken.

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a raw query key or value is UTF-8 once `+` and its percent-escapes are decoded. */
function isUtf8Once(raw: string): boolean {
  // Each escape as the byte it stands for (a char below 256), the rest as sent (ASCII, as Node reads a target).
  const bytes = raw
    .replaceAll('+', ' ')
    .replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  try {
    utf8.decode(Buffer.from(bytes, 'latin1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The names (decoded as URLSearchParams decodes them) of the parameters of a raw query string with a
 * value that is not UTF-8 once percent-decoded.
 */
export function parametersNotUtf8(querystring: string): Set<string> {
  const names = new Set<string>();
  for (const pair of querystring.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || isUtf8Once(pair.slice(equals + 1))) continue;
    const [name] = new URLSearchParams(pair.slice(0, equals)).keys();
    if (name !== undefined) names.add(name);
  }
  return names;
}
