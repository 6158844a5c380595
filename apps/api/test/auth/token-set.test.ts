import { createHash } from 'node:crypto';
import { mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createCredentialChecker } from '../../src/auth/credentials.ts';
import { fixedTokenSet, reloadingTokenSet, type TokenSet } from '../../src/auth/token-set.ts';
import { readTokensFile } from '../../src/config/tokens-file.ts';
import { captureLogs } from '../support/log-capture.ts';

const nameOf = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);

/** The checker the service makes of static tokens alone. */
function checkerOf(staticTokens: TokenSet) {
  const checker = createCredentialChecker({
    staticTokens,
    hasStaticTokens: true,
    scopes: { read: 'plants:read', write: 'plants:write' },
  });
  return {
    /** The name the log gives the caller, or undefined when the credential is refused. */
    nameOf: async (credential: string) => {
      const checked = await checker.check(credential);
      return checked.outcome === 'accepted' ? checked.caller.tokenDigest : undefined;
    },
    matches: async (credential: string) => (await checker.check(credential)).outcome === 'accepted',
  };
}

describe('static tokens', () => {
  it('when a token matches, then its caller is named by the first 12 hex digits of its SHA-256, the first time and after', async () => {
    const set = checkerOf(fixedTokenSet(['alpha-token-1', 'beta-token-2']));
    for (let round = 0; round < 3; round += 1) {
      expect(await set.nameOf('beta-token-2')).toBe(nameOf('beta-token-2'));
      expect(await set.matches('alpha-token-1')).toBe(true);
    }
  });

  it('when a credential does not match, then it is refused every time', async () => {
    const set = checkerOf(fixedTokenSet(['alpha-token-1']));
    for (let round = 0; round < 3; round += 1) {
      expect(await set.nameOf('alpha-token-2')).toBeUndefined();
      expect(await set.matches('alpha-token-1 ')).toBe(false);
    }
  });

  it('when many different tokens are accepted, then every one still matches', async () => {
    const tokens = Array.from({ length: 200 }, (_, i) => `token-${i}-abcdef`);
    const set = checkerOf(fixedTokenSet(tokens));
    for (let round = 0; round < 2; round += 1) {
      for (const token of tokens) expect(await set.nameOf(token)).toBe(nameOf(token));
    }
  });

  describe('from a file that rotates', () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    it('when a remembered token is removed from the file, then it is refused once the file is read again', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'plant-store-tokens-'));
      dirs.push(dir);
      const path = join(dir, 'tokens');
      await writeFile(path, 'old-token-123456\nkept-token-123456\n');
      const set = checkerOf(
        reloadingTokenSet({
          tokens: ['old-token-123456', 'kept-token-123456'],
          file: { path, tokens: readTokensFile(path).tokens, version: readTokensFile(path).version },
          logger: pino({ level: 'silent' }),
          checkEveryMs: 0,
        }),
      );
      expect(await set.matches('old-token-123456')).toBe(true);
      expect(await set.matches('old-token-123456')).toBe(true);
      await writeFile(`${path}.new`, 'kept-token-123456\n');
      await rename(`${path}.new`, path);
      expect(await set.matches('old-token-123456')).toBe(false);
      expect(await set.matches('kept-token-123456')).toBe(true);
    });

    it.each([
      ['larger than 1 MiB', (path: string) => writeFile(path, `${'new-token-123456\n'.repeat(70_000)}`)],
      ['a device that never ends (/dev/zero)', (path: string) => symlink('/dev/zero', path)],
    ])(
      'when the file becomes %s, then the tokens read before stay, with a warning naming it',
      async (_what, replace) => {
        const dir = await mkdtemp(join(tmpdir(), 'plant-store-tokens-'));
        dirs.push(dir);
        const path = join(dir, 'tokens');
        await writeFile(path, 'kept-token-123456\n');
        const logs = captureLogs();
        const set = checkerOf(
          reloadingTokenSet({
            tokens: ['kept-token-123456'],
            file: { path, tokens: readTokensFile(path).tokens, version: readTokensFile(path).version },
            logger: pino({ level: 'warn' }, logs.destination),
            checkEveryMs: 0,
          }),
        );
        await replace(`${path}.new`);
        await rename(`${path}.new`, path);
        expect(await set.matches('kept-token-123456')).toBe(true);
        expect(await set.matches('new-token-123456')).toBe(false);
        expect(logs.lines()).toEqual([
          expect.objectContaining({
            level: 40,
            file: path,
            problems: [
              expect.stringMatching(
                new RegExp(`^API_TOKENS_FILE ${path} is (larger than 1 MiB|not a regular file)$`),
              ),
            ],
            msg: 'API_TOKENS_FILE changed but is not usable: keeping the previous tokens',
          }),
        ]);
      },
    );

    it('when a token is added to the file, then it is accepted once the file is read again (a refusal is never remembered)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'plant-store-tokens-'));
      dirs.push(dir);
      const path = join(dir, 'tokens');
      await writeFile(path, 'first-token-123456\n');
      const set = checkerOf(
        reloadingTokenSet({
          tokens: ['first-token-123456'],
          file: { path, tokens: readTokensFile(path).tokens, version: readTokensFile(path).version },
          logger: pino({ level: 'silent' }),
          checkEveryMs: 0,
        }),
      );
      expect(await set.matches('first-token-123456')).toBe(true);
      expect(await set.matches('second-token-123456')).toBe(false);
      await writeFile(`${path}.new`, 'second-token-123456\n');
      await rename(`${path}.new`, path);
      expect(await set.matches('second-token-123456')).toBe(true);
      expect(await set.matches('first-token-123456')).toBe(false);
    });
  });
});
