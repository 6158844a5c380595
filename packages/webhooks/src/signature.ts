import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

// createHmac with a Buffer makes a KeyObject of it on every call: ~30 us a delivery in the profile.
// Made once per key instead.
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObjectOf(key: Buffer): KeyObject {
  let keyObject = keyObjects.get(key);
  if (keyObject === undefined) {
    keyObject = createSecretKey(key);
    keyObjects.set(key, keyObject);
  }
  return keyObject;
}

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
  return keys
    .map((key) => `v1,${createHmac('sha256', keyObjectOf(key)).update(signed).digest('base64')}`)
    .join(' ');
}
