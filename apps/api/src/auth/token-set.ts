import { hash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { readTokensFile, type TokensFile, tokensFileVersion } from '../config/tokens-file.ts';

/** The static bearer tokens (API_TOKENS, API_TOKENS_FILE) accepted now, as their SHA-256 digests. */
export interface TokenSet {
  /** The digests as they are now: a new array (a new identity) whenever the tokens change. */
  digests(): readonly Buffer[];
}

/** The digest a credential is compared and remembered by: 32 bytes whatever its length. */
export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/**
 * Whether `digest` equals one of `tokenDigests`. Hashing gives both sides one length (32 bytes),
 * and every digest is compared, without stopping at a match, so the time taken depends only on
 * how many tokens are configured. `equal` is there for the test that counts the comparisons.
 */
export function matchesAnyDigest(
  digest: Buffer,
  tokenDigests: readonly Buffer[],
  equal: (a: Buffer, b: Buffer) => boolean = timingSafeEqual,
): boolean {
  let matched = false;
  for (const tokenDigest of tokenDigests) matched = equal(digest, tokenDigest) || matched;
  return matched;
}

function digestsOf(tokens: readonly string[]): Buffer[] {
  return [...new Set(tokens)].map(sha256);
}

/** A token set that never changes: API_TOKENS alone. */
export function fixedTokenSet(tokens: readonly string[]): TokenSet {
  const digests = digestsOf(tokens);
  return { digests: () => digests };
}

export interface ReloadingTokenSetOptions {
  /** Every token accepted at start: API_TOKENS (or a generated one) and the file's. */
  readonly tokens: readonly string[];
  /** API_TOKENS_FILE as read at start. */
  readonly file: TokensFile;
  readonly logger: Logger;
  /** The file is looked at (one stat) at most this often. Default 1000. */
  readonly checkEveryMs?: number;
}

/**
 * The tokens of API_TOKENS plus those of API_TOKENS_FILE as it is now: the file is stat'ed at
 * most once a second, on a request, and read again when it changed, so a rotated secret is
 * honoured without a restart (the credential checker then forgets every outcome it remembered). A version of the file that cannot be read, holds a bad line or no
 * token at all (a half-written file) is not taken: the previous tokens stay, with a warning.
 */
export function reloadingTokenSet(options: ReloadingTokenSetOptions): TokenSet {
  const { file, logger } = options;
  const checkEveryMs = options.checkEveryMs ?? 1_000;
  // The tokens that do not come from the file stay whatever the file becomes.
  const fromFileAtStart = new Set(file.tokens);
  const fixed = options.tokens.filter((token) => !fromFileAtStart.has(token));

  let digests = digestsOf(options.tokens);
  // The version read at start, not the one here now: a file changed since is read at the first look.
  let version = file.version;
  let checkedAt = performance.now();

  const refresh = (): void => {
    const next = tokensFileVersion(file.path);
    // Missing for a moment while a secret is swapped: keep what we have and look again later.
    if (next === undefined || next === version) return;
    version = next;
    const { tokens, problems } = readTokensFile(file.path);
    if (problems.length > 0 || tokens.length === 0) {
      logger.warn(
        {
          file: file.path,
          problems:
            problems.length > 0
              ? problems.map((problem) => `API_TOKENS_FILE ${problem}`)
              : ['the file holds no token'],
        },
        'API_TOKENS_FILE changed but is not usable: keeping the previous tokens',
      );
      return;
    }
    digests = digestsOf([...fixed, ...tokens]);
    logger.info({ file: file.path, tokens: tokens.length }, 'API_TOKENS_FILE changed: tokens reloaded');
  };

  return {
    digests() {
      const now = performance.now();
      if (now - checkedAt >= checkEveryMs) {
        checkedAt = now;
        refresh();
      }
      return digests;
    },
  };
}
