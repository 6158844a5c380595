import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { parseWebhookSecrets } from './secrets.ts';
import { signatureHeader } from './signature.ts';

// The example delivery of docs/webhook.md.
const PAGE = readFileSync(new URL('../../../docs/webhook.md', import.meta.url), 'utf8');

describe("docs/webhook.md's example delivery", () => {
  const example = /```http\n(POST [\s\S]*?)\n```/.exec(PAGE)?.[1] ?? '';
  const [head = '', body = ''] = example.split('\n\n');
  const header = (name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(head)?.[1] ?? '';
  const secret = /example secret `(whsec_[^`]+)`/.exec(PAGE)?.[1] ?? '';

  it('when it is signed again with the example secret, by standardwebhooks and by us, then both give its signature', () => {
    expect(body).toMatch(/^\{"id":\d+,/);
    const id = header('webhook-id');
    const timestamp = Number(header('webhook-timestamp'));
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe(header('webhook-signature'));
    expect(signatureHeader(parseWebhookSecrets(secret), id, timestamp, body)).toBe(
      header('webhook-signature'),
    );
  });

  it('when a verifier checks it now, then it is refused as too old, as the page says', () => {
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, header(name)]),
    );
    expect(Date.now() / 1000 - Number(header('webhook-timestamp'))).toBeGreaterThan(5 * 60);
    expect(() => new Webhook(secret).verify(body, headers)).toThrow('Message timestamp too old');
    expect(PAGE).toContain('`Message timestamp too old`');
  });
});
