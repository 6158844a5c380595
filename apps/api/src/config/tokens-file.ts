import { readFileSync, statSync } from 'node:fs';
import { checkTokens, type TokenEntry } from './bearer-tokens.ts';
import { reading, type SettingValue } from './setting.ts';

/** API_TOKENS_FILE as it was read at start. */
export interface TokensFile {
  readonly path: string;
  /** Its valid tokens. */
  readonly tokens: readonly string[];
  /** The version of the file they were read from (see tokensFileVersion). */
  readonly version: string;
}

/** What tells one version of the file from another without reading it; undefined while it is missing. */
export function tokensFileVersion(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return undefined;
  }
}

// One token a line, or several on a line separated by commas as in API_TOKENS (a compose secret
// made from API_TOKENS holds them so): a comma is never part of a bearer token.
function tokenEntriesOf(text: string): TokenEntry[] {
  return text.split(/\r?\n/).flatMap((line, index) => {
    const content = line.trim();
    if (content === '' || content.startsWith('#')) return [];
    const entries = content.split(',').map((entry) => entry.trim());
    return entries.flatMap((token, entry) => {
      if (token === '') return [];
      return [{ token, place: `line ${index + 1}${entries.length > 1 ? ` entry ${entry + 1}` : ''}` }];
    });
  });
}

/**
 * Reads a tokens file: its valid tokens, the problems found (each follows the variable's name and
 * never holds a token), and the version read.
 */
export function readTokensFile(path: string): { tokens: string[]; problems: string[]; version: string } {
  // Looked at before reading: a change during the read then shows as a new version, read at the next look.
  const version = tokensFileVersion(path) ?? '';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { tokens: [], problems: [`${path} could not be read (${code})`], version };
  }
  return { ...checkTokens(tokenEntriesOf(text)), version };
}

/** API_TOKENS_FILE: the path of a tokens file, read at once. */
export const tokensFile: SettingValue<TokensFile> = reading((path) => {
  const { tokens, problems, version } = readTokensFile(path);
  return problems.length > 0 ? { problems } : { value: { path, tokens, version } };
});
