/**
 * Whether a header came more than once. Node keeps only the first `Authorization` or
 * `Content-Type` in `req.headers`, so a second one (sent to confuse a proxy that reads the other)
 * is visible only in the raw list.
 */
export function isRepeated(rawHeaders: readonly string[], lowerCaseName: string): boolean {
  let seen = false;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length !== lowerCaseName.length || name.toLowerCase() !== lowerCaseName) continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}
