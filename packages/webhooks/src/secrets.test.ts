import { newSecret } from '@plant-store/test-support';
import { describe, expect, it } from 'vitest';
import { parseWebhookSecrets } from './secrets.ts';

describe('parseWebhookSecrets', () => {
  it('when one secret is given, then its key is the base64 after whsec_', () => {
    const key = Buffer.alloc(32, 7);
    expect(parseWebhookSecrets(`whsec_${key.toString('base64')}`)).toStrictEqual([key]);
  });

  it('when two secrets are given while rotating, then both keys are kept in order', () => {
    const [a, b] = [newSecret(), newSecret()];
    const keys = parseWebhookSecrets(` ${a}  ${b} `);
    expect(keys.map((key) => `whsec_${key.toString('base64')}`)).toStrictEqual([a, b]);
  });

  it.each([
    ['', /at least one/],
    ['   ', /at least one/],
    [Buffer.alloc(32).toString('base64'), /^must start with whsec_$/],
    ['whsec_not*base64!!', /^must be whsec_ followed by base64$/],
    [`whsec_${Buffer.alloc(16).toString('base64')}`, /24 to 64 bytes \(it has 16\)/],
    [`whsec_${Buffer.alloc(65).toString('base64')}`, /24 to 64 bytes \(it has 65\)/],
  ])('when WEBHOOK_SECRET is %j, then it is refused saying why', (text, message) => {
    expect(() => parseWebhookSecrets(text)).toThrow(message);
  });

  it('when the second of two secrets does not start with whsec_, then the message says which one', () => {
    expect(() => parseWebhookSecrets(`${newSecret()} ${Buffer.alloc(32).toString('base64')}`)).toThrow(
      /^must start with whsec_ \(secret 2 of 2 is not\)$/,
    );
  });

  it('when the second of two secrets is wrong, then the message names it and shows no secret', () => {
    const good = newSecret();
    let message = '';
    try {
      parseWebhookSecrets(`${good} whsec_c2hvcnQ=`);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('must hold a key of 24 to 64 bytes (secret 2 of 2 has 5)');
    expect(message).not.toContain(good.slice(6));
  });
});
