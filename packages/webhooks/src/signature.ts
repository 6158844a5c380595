import { createHmac } from 'node:crypto';

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, one per key, space-separated (a receiver accepts any one it can verify).
 */
export function signatureHeader(
  keys: readonly Buffer[],
  id: string,
  timestamp: number,
  body: string,
): string {
  const signed = `${id}.${timestamp}.${body}`;
  return keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
}
