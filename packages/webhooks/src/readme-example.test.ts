import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { parseWebhookSecrets } from './secrets.ts';
import { signatureHeader } from './signature.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe("the README's example delivery", () => {
  const example = /```http\n(POST [\s\S]*?)\n```/.exec(README)?.[1] ?? '';
  const [head = '', body = ''] = example.split('\n\n');
  const header = (name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(head)?.[1] ?? '';
  const secret = /example secret `(whsec_[^`]+)`/.exec(README)?.[1] ?? '';

  it('when it is signed again with the example secret, by standardwebhooks and by us, then both give its signature', () => {
    expect(body).toMatch(/^\{"id":\d+,/);
    const id = header('webhook-id');
    const timestamp = Number(header('webhook-timestamp'));
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe(header('webhook-signature'));
    expect(signatureHeader(parseWebhookSecrets(secret), id, timestamp, body)).toBe(
      header('webhook-signature'),
    );
  });
});
