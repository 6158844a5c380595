import { reading, type SettingValue } from './setting.ts';

// RFC 6750 b64token: what may follow `Bearer ` in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A token as configured, with where it came from: a bad one is named by its place, never by its value. */
export interface TokenEntry {
  readonly token: string;
  /** Follows the variable's name: `entry 2`, `line 3`. */
  readonly place: string;
}

/** The valid tokens, without duplicates, and a problem for each invalid one that names its place only. */
export function checkTokens(entries: readonly TokenEntry[]): { tokens: string[]; problems: string[] } {
  const tokens = new Set<string>();
  const problems: string[] = [];
  for (const { token, place } of entries) {
    if (B64TOKEN.test(token)) tokens.add(token);
    else
      problems.push(
        `${place} is not a valid bearer token (allowed: A-Z a-z 0-9 - . _ ~ + / and a trailing =)`,
      );
  }
  return { tokens: [...tokens], problems };
}

/** API_TOKENS: tokens separated by commas; spaces around them and empty entries are ignored. */
export const tokenList: SettingValue<readonly string[]> = reading((list) => {
  const entries = list
    .split(',')
    .map((entry, index) => ({ token: entry.trim(), place: `entry ${index + 1}` }))
    .filter(({ token }) => token !== '');
  const { tokens, problems } = checkTokens(entries);
  return problems.length > 0 ? { problems } : { value: tokens };
});
