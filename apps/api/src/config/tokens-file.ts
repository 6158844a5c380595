import { statSync } from 'node:fs';
import { checkTokens, type TokenEntry } from './bearer-tokens.ts';
import { reading, type SettingValue } from './setting.ts';
import { readSmallFile } from './small-file.ts';

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

/** The most a tokens file may hold: tens of thousands of tokens. A larger one is never read whole. */
export const TOKENS_FILE_MAX_BYTES = 1024 * 1024;

/** The text of the tokens file, or why it is refused (readSmallFile). */
function readBounded(path: string): { text: string } | { problem: string } {
  const read = readSmallFile(path, TOKENS_FILE_MAX_BYTES);
  if ('bytes' in read) return { text: read.bytes.toString('utf8') };
  if ('notRegular' in read) return { problem: `${path} is not a regular file` };
  if ('tooLarge' in read) return { problem: `${path} is larger than 1 MiB` };
  return { problem: `${path} could not be read (${read.why})` };
}

/**
 * Reads a tokens file: its valid tokens, the problems found (each follows the variable's name and
 * never holds a token), and the version read.
 */
export function readTokensFile(path: string): { tokens: string[]; problems: string[]; version: string } {
  // Looked at before reading: a change during the read then shows as a new version, read at the next look.
  const version = tokensFileVersion(path) ?? '';
  const read = readBounded(path);
  if ('problem' in read) return { tokens: [], problems: [read.problem], version };
  return { ...checkTokens(tokenEntriesOf(read.text)), version };
}

/** API_TOKENS_FILE: the path of a tokens file, read at once. */
export const tokensFile: SettingValue<TokensFile> = reading((path) => {
  const { tokens, problems, version } = readTokensFile(path);
  return problems.length > 0 ? { problems } : { value: { path, tokens, version } };
});
