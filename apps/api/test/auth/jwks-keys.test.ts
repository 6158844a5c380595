// The provider's keys, as the key store keeps them: rotation without a restart, at most one refetch
// per cooldown for unknown kids, and known keys kept for a bounded time while the provider is down.
import { decodeProtectedHeader } from 'jose';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, type KeyStore, KeysUnavailableError } from '../../src/auth/jwks-keys.ts';
import {
  type OversizedAnswer,
  signingKey,
  startTestProvider,
  type TestProvider,
} from '../support/jwks-server.ts';
import { captureLogs } from '../support/log-capture.ts';

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider();
});
afterAll(async () => {
  await provider?.close();
});

const stores: KeyStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.stop();
  provider.setDown(false);
  provider.oversize(undefined);
});

/** A key store over the test provider with a clock the test moves. */
function storeAt(
  clock: { now: number },
  options: { unknownKidCooldownMs?: number; maxKeyAgeMs?: number } = {},
) {
  const store = createKeyStore({
    issuer: provider.issuer,
    jwksUrl: undefined,
    logger: pino({ level: 'silent' }),
    now: () => clock.now,
    refreshEveryMs: 3_600_000,
    ...options,
  });
  stores.push(store);
  return store;
}

const headerOf = async (token: string) => decodeProtectedHeader(token) as { alg: string; kid: string };

describe('the key store', () => {
  it('when the provider rotates to a new kid, then a token with it is verified without a restart, after one refetch', async () => {
    const first = await signingKey('ES256', 'first');
    provider.publish([first]);
    const clock = { now: 1_000_000 };
    const store = storeAt(clock, { unknownKidCooldownMs: 30_000 });
    await store.start();
    expect(store.ready()).toBe(true);
    const second = await signingKey('ES256', 'second');
    provider.publish([first, second]);
    clock.now += 31_000;
    const fetchesBefore = provider.jwksFetches();
    await expect(store.getKey(await headerOf(await provider.token(second)))).resolves.toBeDefined();
    expect(provider.jwksFetches() - fetchesBefore).toBe(1);
  });

  it('when tokens with made-up kids keep coming, then the provider is asked at most once per cooldown', async () => {
    const known = await signingKey('ES256', 'known');
    provider.publish([known]);
    const clock = { now: 5_000_000 };
    const store = storeAt(clock, { unknownKidCooldownMs: 30_000 });
    await store.start();
    const fetchesBefore = provider.jwksFetches();
    for (let index = 0; index < 50; index += 1) {
      const stranger = await signingKey('ES256', `made-up-${index}`);
      await expect(store.getKey(await headerOf(await provider.token(stranger)))).rejects.toThrow();
      clock.now += 1_000; // 50 tokens over 50 s: two cooldowns
    }
    expect(provider.jwksFetches() - fetchesBefore).toBeLessThanOrEqual(2);
  });

  it('when the provider goes down, then known keys work until the bound, then none do, and the store stays ready', async () => {
    const known = await signingKey('ES256', 'kept');
    provider.publish([known]);
    const clock = { now: 9_000_000 };
    const store = storeAt(clock, { maxKeyAgeMs: 24 * 3_600_000 });
    await store.start();
    provider.setDown(true);
    const header = await headerOf(await provider.token(known));
    clock.now += 23 * 3_600_000;
    await expect(store.getKey(header)).resolves.toBeDefined();
    expect(store.ready()).toBe(true);
    clock.now += 2 * 3_600_000;
    await expect(store.getKey(header)).rejects.toBeInstanceOf(KeysUnavailableError);
    // Still ready: loaded once. Static tokens keep reaching this replica; JWTs get a 503.
    expect(store.ready()).toBe(true);
  });

  it('when the provider is down at start, then nothing is ready and every key is unavailable, until it is back', async () => {
    provider.setDown(true);
    const key = await signingKey('ES256', 'late');
    provider.publish([key]);
    const store = createKeyStore({
      issuer: provider.issuer,
      jwksUrl: undefined,
      logger: pino({ level: 'silent' }),
      retryEveryMs: 50,
    });
    stores.push(store);
    await store.start();
    expect(store.ready()).toBe(false);
    expect(store.ageSeconds()).toBeUndefined();
    await expect(store.getKey(await headerOf(await provider.token(key)))).rejects.toBeInstanceOf(
      KeysUnavailableError,
    );
    provider.setDown(false);
    for (let tries = 0; tries < 100 && !store.ready(); tries += 1)
      await new Promise((r) => setTimeout(r, 20));
    expect(store.ready()).toBe(true);
    expect(store.failedFetches()).toBeGreaterThanOrEqual(1);
  });
});

describe('answers of the provider over 1 MiB (DESIGN.md: refused, the keys already known stay)', () => {
  it.each<[string, OversizedAnswer, RegExp]>([
    [
      'the JWKS declares 2 MiB',
      { document: 'jwks', framing: 'declared' },
      /declares \d+ bytes, over the 1048576/,
    ],
    [
      'the JWKS comes chunked, 2 MiB',
      { document: 'jwks', framing: 'chunked' },
      /sent more than the 1048576 bytes/,
    ],
    [
      'the discovery document declares 2 MiB',
      { document: 'discovery', framing: 'declared' },
      /openid-configuration declares \d+ bytes/,
    ],
    [
      'the discovery document comes chunked, 2 MiB',
      { document: 'discovery', framing: 'chunked' },
      /openid-configuration sent more than the 1048576 bytes/,
    ],
  ])(
    'when %s, then it is refused, the keys already known stay, and the failure is warned of and counted',
    async (_label, answer, reason) => {
      const known = await signingKey('ES256', 'known-before');
      provider.publish([known]);
      const clock = { now: 20_000_000 };
      const logs = captureLogs();
      const store = createKeyStore({
        issuer: provider.issuer,
        jwksUrl: undefined,
        logger: pino({ level: 'warn' }, logs.destination),
        now: () => clock.now,
        refreshEveryMs: 3_600_000,
        unknownKidCooldownMs: 30_000,
      });
      stores.push(store);
      await store.start();
      expect(store.failedFetches()).toBe(0);

      // The provider now publishes another key set, in an answer too large to read.
      const replacement = await signingKey('ES256', 'in-the-oversized-answer');
      provider.publish([replacement]);
      provider.oversize(answer);
      clock.now += 31_000;
      // An unknown kid asks the provider again: the answer is refused, so the new key stays unknown.
      await expect(store.getKey(await headerOf(await provider.token(replacement)))).rejects.toThrow();
      await expect(store.getKey(await headerOf(await provider.token(known)))).resolves.toBeDefined();
      expect(store.failedFetches()).toBe(1);
      const warnings = logs.lines().filter((line) => line.level === 40);
      expect(warnings).toEqual([
        expect.objectContaining({
          msg: 'JWT keys could not be refreshed: the keys already known stay in use',
          err: expect.objectContaining({ message: expect.stringMatching(reason) }),
        }),
      ]);

      // Once the provider answers within the cap again, its keys are taken.
      provider.oversize(undefined);
      clock.now += 31_000;
      await expect(store.getKey(await headerOf(await provider.token(replacement)))).resolves.toBeDefined();
    },
  );
});
