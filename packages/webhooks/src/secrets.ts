/** The prefix of a Standard Webhooks secret: `whsec_` + base64 of the key. */
const PREFIX = 'whsec_';
// The Standard Webhooks specification: keys of 24 to 64 bytes.
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The signing keys of WEBHOOK_SECRET: one or more `whsec_…` secrets, space-separated. While a secret
 * is rotated both are given, and every delivery carries a signature by each. Throws an Error saying
 * what is wrong, never echoing a secret; its message follows the variable's name
 * (`WEBHOOK_SECRET must start with whsec_`), so it reads as a predicate of the whole value.
 */
export function parseWebhookSecrets(text: string): Buffer[] {
  const secrets = text.split(' ').filter((part) => part !== '');
  if (secrets.length === 0) throw new Error('must hold at least one whsec_ secret');
  return secrets.map((secret, index) => {
    // With one secret the value is the secret; with several, say which one is wrong.
    const which = secrets.length === 1 ? '' : ` (secret ${index + 1} of ${secrets.length} is not)`;
    if (!secret.startsWith(PREFIX)) throw new Error(`must start with ${PREFIX}${which}`);
    const encoded = secret.slice(PREFIX.length);
    const key = Buffer.from(encoded, 'base64');
    // Buffer.from skips what is not base64: re-encoding tells a typo from a key.
    if (!BASE64.test(encoded) || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
      throw new Error(`must be ${PREFIX} followed by base64${which}`);
    }
    if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
      const holder = secrets.length === 1 ? 'it has' : `secret ${index + 1} of ${secrets.length} has`;
      throw new Error(
        `must hold a key of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes (${holder} ${key.length})`,
      );
    }
    return key;
  });
}
