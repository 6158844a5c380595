import { describe, expect, it } from 'vitest';
import { createCredentialChecker } from '../../src/auth/credentials.ts';
import { type JwtPrincipal, type JwtVerifier, TokenRejectedError } from '../../src/auth/jwt-verifier.ts';
import { fixedTokenSet, type TokenSet } from '../../src/auth/token-set.ts';

const SCOPES = { read: 'plants:read', write: 'plants:write' };
// Shaped like a JWT (three base64url parts); the fake verifier decides what it holds.
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzdmMifQ.c2lnbmF0dXJl';

/** A verifier that counts its calls and accepts `valid` tokens until `expiresAtMs`. */
function countingVerifier(valid: ReadonlySet<string>, expiresAtMs: number) {
  const calls: string[] = [];
  const verifier: JwtVerifier = {
    async verify(token): Promise<JwtPrincipal> {
      calls.push(token);
      if (!valid.has(token)) throw new TokenRejectedError('signature does not match');
      return { subject: 'svc', clientId: 'bench', scopes: new Set(['plants:write']), expiresAtMs };
    },
  };
  return { verifier, calls };
}

/** Static tokens that can be swapped, as a rotated API_TOKENS_FILE would. */
function swappableTokens(initial: readonly string[]) {
  let current = fixedTokenSet(initial);
  const tokens: TokenSet = { digests: () => current.digests() };
  return { tokens, swap: (next: readonly string[]) => (current = fixedTokenSet(next)) };
}

function checker(options: { tokens?: TokenSet; verifier: JwtVerifier; clock: { now: number } }) {
  return createCredentialChecker({
    staticTokens: options.tokens ?? fixedTokenSet(['static-token-123456']),
    hasStaticTokens: true,
    jwt: { verifier: options.verifier, ready: () => true },
    scopes: SCOPES,
    now: () => options.clock.now,
  });
}

describe('credential checker, the outcomes it remembers', () => {
  it('when the same JWT comes again before its exp, then it is accepted with the same outcome without being verified again', async () => {
    const { verifier, calls } = countingVerifier(new Set([JWT]), 10_000);
    const credentials = checker({ verifier, clock: { now: 1_000 } });
    const first = await credentials.check(JWT);
    expect(first).toMatchObject({
      outcome: 'accepted',
      caller: { kind: 'jwt', sub: 'svc', clientId: 'bench' },
    });
    for (let round = 0; round < 5; round += 1) expect(await credentials.check(JWT)).toBe(first);
    expect(calls).toEqual([JWT]);
  });

  it('when its exp has passed, then it is verified again, and what the verifier says stands', async () => {
    const valid = new Set([JWT]);
    const { verifier, calls } = countingVerifier(valid, 10_000);
    const clock = { now: 1_000 };
    const credentials = checker({ verifier, clock });
    expect((await credentials.check(JWT)).outcome).toBe('accepted');
    clock.now = 10_000;
    valid.delete(JWT);
    expect(await credentials.check(JWT)).toEqual({
      outcome: 'rejected',
      description: 'signature does not match',
    });
    expect(calls).toEqual([JWT, JWT]);
  });

  it('when a token is refused, then it is verified again every time (refusals are not remembered)', async () => {
    const { verifier, calls } = countingVerifier(new Set(), 10_000);
    const credentials = checker({ verifier, clock: { now: 1_000 } });
    for (let round = 0; round < 3; round += 1)
      expect((await credentials.check(JWT)).outcome).toBe('rejected');
    expect(calls).toHaveLength(3);
  });

  it('when a remembered JWT becomes a static token, then it is the static token from then on', async () => {
    const { verifier } = countingVerifier(new Set([JWT]), 10_000);
    const { tokens, swap } = swappableTokens(['static-token-123456']);
    const credentials = checker({ tokens, verifier, clock: { now: 1_000 } });
    expect(await credentials.check(JWT)).toMatchObject({ outcome: 'accepted', caller: { kind: 'jwt' } });
    swap(['static-token-123456', JWT]);
    expect(await credentials.check(JWT)).toMatchObject({
      outcome: 'accepted',
      caller: { kind: 'static' },
      scopes: 'all',
    });
  });

  it('when a JWT is longer than 4 KB, then it is remembered as any other (by its digest)', async () => {
    const long = `${JWT}${'A'.repeat(5_000)}`;
    const { verifier, calls } = countingVerifier(new Set([long]), 10_000);
    const credentials = checker({ verifier, clock: { now: 1_000 } });
    for (let round = 0; round < 3; round += 1)
      expect((await credentials.check(long)).outcome).toBe('accepted');
    expect(calls).toHaveLength(1);
  });

  it('when more than 10,000 credentials are in use, then the least recently used is verified again, and each is still checked correctly', async () => {
    const tokens = Array.from({ length: 10_001 }, (_, i) => `${JWT}${i}`);
    const { verifier, calls } = countingVerifier(new Set(tokens), 10_000);
    const credentials = checker({ verifier, clock: { now: 1_000 } });
    const [first, second] = tokens as [string, string];
    expect((await credentials.check(first)).outcome).toBe('accepted');
    expect((await credentials.check(second)).outcome).toBe('accepted');
    // The first is used again, so the second is now the least recently used.
    expect((await credentials.check(first)).outcome).toBe('accepted');
    for (const token of tokens.slice(2)) expect((await credentials.check(token)).outcome).toBe('accepted');
    expect(calls).toHaveLength(10_001);
    expect((await credentials.check(first)).outcome).toBe('accepted');
    expect(calls).toHaveLength(10_001);
    expect((await credentials.check(second)).outcome).toBe('accepted');
    expect(calls.slice(10_001)).toEqual([second]);
  });

  it('when the static tokens change while a JWT is being verified, then its outcome is not remembered: the token the change made static is static', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const verifier: JwtVerifier = {
      async verify(): Promise<JwtPrincipal> {
        await held;
        return { subject: 'svc', clientId: 'bench', scopes: new Set(['plants:read']), expiresAtMs: 10_000 };
      },
    };
    const { tokens, swap } = swappableTokens(['static-token-123456']);
    const credentials = checker({ tokens, verifier, clock: { now: 1_000 } });
    const verifying = credentials.check(JWT);
    swap(['static-token-123456', JWT]);
    // Another request sees the new tokens before the verification ends.
    expect((await credentials.check('static-token-123456')).outcome).toBe('accepted');
    release();
    expect(await verifying).toMatchObject({ outcome: 'accepted', caller: { kind: 'jwt' } });
    expect(await credentials.check(JWT)).toMatchObject({ outcome: 'accepted', caller: { kind: 'static' } });
  });

  it('when a static token is taken out, then it is refused at once, though it was accepted before', async () => {
    const { verifier } = countingVerifier(new Set(), 10_000);
    const { tokens, swap } = swappableTokens(['static-token-123456', 'other-token-123456']);
    const credentials = checker({ tokens, verifier, clock: { now: 1_000 } });
    expect((await credentials.check('other-token-123456')).outcome).toBe('accepted');
    swap(['static-token-123456']);
    expect((await credentials.check('other-token-123456')).outcome).toBe('rejected');
  });

  it('when a hundred clients each send their own JWT, then each is verified once', async () => {
    const tokens = Array.from({ length: 100 }, (_, i) => `${JWT}${i}`);
    const { verifier, calls } = countingVerifier(new Set(tokens), 10_000);
    const credentials = checker({ verifier, clock: { now: 1_000 } });
    for (let round = 0; round < 3; round += 1) {
      for (const token of tokens) expect((await credentials.check(token)).outcome).toBe('accepted');
    }
    expect(calls).toEqual(tokens);
  });
});
