// How the text of a setting is read. Each message follows the variable's name, and echoes the
// text it refuses, except where a setting may hold a secret (DATABASE_URL, WEBHOOK_SECRET).
import { parseRetrySchedule, parseWebhookSecrets, redactedUrl } from '@plant-store/webhooks';
import * as v from 'valibot';
import { type DatabaseConfig, isDatabaseUrlProblem, parseDatabaseUrl } from '../storage-adapters.ts';
import { reading, type SettingValue } from './setting.ts';

/** Any text: a host name, an environment's name. */
export const text: SettingValue<string> = v.string();

/** Digits only (no sign, fraction or exponent), from min to max. */
export function wholeNumber(min: number, max: number): SettingValue<number> {
  return v.pipe(
    v.string(),
    v.check(
      (digits) => /^[0-9]+$/.test(digits) && Number(digits) >= min && Number(digits) <= max,
      (issue) => `must be a whole number from ${min} to ${max}, not "${issue.input}"`,
    ),
    v.transform(Number),
  );
}

/** `auto` (in any case), or a whole number from min to max. */
export function autoOrWholeNumber(min: number, max: number): SettingValue<number | 'auto'> {
  return v.pipe(
    v.string(),
    v.check(
      (written) =>
        /^auto$/i.test(written) ||
        (/^[0-9]+$/.test(written) && Number(written) >= min && Number(written) <= max),
      (issue) => `must be auto or a whole number from ${min} to ${max}, not "${issue.input}"`,
    ),
    v.transform((written) => (/^auto$/i.test(written) ? 'auto' : Number(written))),
  );
}

/** A decimal number from 0 to 1 (a sampling ratio): `0.1`, `1`, `.25`. */
export const ratio: SettingValue<number> = v.pipe(
  v.string(),
  v.check(
    (written) => /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(written) && Number(written) <= 1,
    (issue) => `must be a number from 0 to 1, not "${issue.input}"`,
  ),
  v.transform(Number),
);

/** `true` or `false`, in any case: the OpenTelemetry variables' booleans. */
export const trueFalse: SettingValue<boolean> = v.pipe(
  v.string(),
  v.check(
    (word) => /^(true|false)$/i.test(word),
    (issue) => `must be true or false, not "${issue.input}"`,
  ),
  v.transform((word) => word.toLowerCase() === 'true'),
);

/** `on` or `off`, in any case. */
export const onOff: SettingValue<boolean> = v.pipe(
  v.string(),
  v.check(
    (word) => /^(on|off)$/i.test(word),
    (issue) => `must be on or off, not "${issue.input}"`,
  ),
  v.transform((word) => word.toLowerCase() === 'on'),
);

/** One of the choices, in any case; the value is the choice as listed. */
export function oneOf<const Choice extends string>(choices: readonly Choice[]): SettingValue<Choice> {
  const choiceOf = (word: string) => choices.find((choice) => choice === word.toLowerCase());
  return v.pipe(
    v.string(),
    v.check(
      (word) => choiceOf(word) !== undefined,
      (issue) => `must be one of ${choices.join(', ')}, not "${issue.input}"`,
    ),
    v.transform((word) => choiceOf(word) as Choice),
  );
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1024, mb: 1024 * 1024 };

/** Bytes in `65536`, `64kb`, `1mb`, `100 b`; NaN when the text is none of these. */
function bytesOf(size: string): number {
  const match = /^([0-9]+)\s*(b|kb|mb)?$/i.exec(size);
  return match ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase()] ?? Number.NaN) : Number.NaN;
}

/** A size in bytes, or with a unit (`b`, `kb`, `mb`: powers of 1024), from 1 byte to `max` (written as a size). */
export function size(max: string): SettingValue<number> {
  const maxBytes = bytesOf(max);
  return v.pipe(
    v.string(),
    v.check(
      (written) => bytesOf(written) >= 1 && bytesOf(written) <= maxBytes,
      (issue) => `must be a size from 1 byte to ${max}, like 65536, 64kb or 1mb, not "${issue.input}"`,
    ),
    v.transform(bytesOf),
  );
}

/** The storage a DATABASE_URL names (see storage-adapters.ts). Its problems never echo it: it may hold a password. */
export const databaseUrl: SettingValue<DatabaseConfig> = reading((url) => {
  const database = parseDatabaseUrl(url);
  return isDatabaseUrlProblem(database) ? { problems: [database.problem] } : { value: database };
});

/**
 * A URL as a message may show it: user, password and query values replaced (redactedUrl, as in the
 * spans), and not at all when it has `@` or `?` in a form where they cannot be told apart.
 */
export function shownUrl(text: string): string {
  if (URL.canParse(text) && new URL(text).host !== '') return `"${redactedUrl(new URL(text))}"`;
  return /[@?]/.test(text) ? '(not shown: it may hold a secret)' : `"${text}"`;
}

/** An http(s) URL (an identity provider's issuer or JWKS address, an OTLP endpoint), perhaps with a user and password. */
export const httpUrl: SettingValue<string> = v.pipe(
  v.string(),
  v.check(
    (text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol),
    (issue) => `must be an http or https URL, not ${shownUrl(issue.input)}`,
  ),
);

/** JWS algorithms a provider signs access tokens with: asymmetric only (never none, never HMAC). */
export const JWT_ALGORITHM_NAMES = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** A comma-separated list of JWT_ALGORITHM_NAMES, exactly as spelled there. */
export const jwtAlgorithms: SettingValue<readonly string[]> = reading((text) => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(JWT_ALGORITHM_NAMES as readonly string[]).includes(name));
  if (names.length === 0) return { problems: ['must name at least one algorithm'] };
  if (unknown.length > 0) {
    return {
      problems: unknown.map(
        (name) =>
          `names "${name}", which is not allowed (allowed: ${JWT_ALGORITHM_NAMES.join(', ')}; never none or HMAC)`,
      ),
    };
  }
  return { value: [...new Set(names)] };
});

/** An OAuth scope: visible ASCII without spaces or quotes (RFC 6749 section 3.3). */
export const scopeName: SettingValue<string> = v.pipe(
  v.string(),
  v.check(
    (text) => /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(text),
    (issue) =>
      `must be one OAuth scope (visible characters, no space, quote or backslash), not "${issue.input}"`,
  ),
);

/**
 * WEBHOOK_URLS: comma-separated http(s) URLs, each given once. No user:password in them (fetch
 * refuses those; a receiver checks the signature instead) and no fragment (never sent).
 */
export const webhookUrls: SettingValue<readonly string[]> = reading((text) => {
  const urls = text
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  if (urls.length === 0) return { problems: ['must name at least one URL'] };
  const problems = urls.flatMap((url) => {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      return [`must hold http or https URLs, not "${url}"`];
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '')
      return [`must hold URLs without user or password (the signature authenticates): ${parsed.host}`];
    if (parsed.hash !== '') return [`must hold URLs without a #fragment, not "${url}"`];
    return [];
  });
  return problems.length > 0 ? { problems } : { value: [...new Set(urls.map((url) => new URL(url).href))] };
});

/** WEBHOOK_SECRET: Standard Webhooks secrets (`whsec_…`), space-separated. Messages never echo a secret. */
export const webhookSecrets: SettingValue<readonly Buffer[]> = reading((text) => {
  try {
    return { value: parseWebhookSecrets(text) };
  } catch (error) {
    return { problems: [(error as Error).message] };
  }
});

/** WEBHOOK_RETRY_SCHEDULE: the waits before each further attempt, `5s,5m,30m,…`. */
export const retrySchedule: SettingValue<readonly number[]> = reading((text) => {
  try {
    return { value: parseRetrySchedule(text) };
  } catch (error) {
    return { problems: [`must be waits such as 5s,5m,2h: ${(error as Error).message}`] };
  }
});

/** The origins CORS_ORIGINS lets read the answers: exactly as browsers send `Origin`, or any (`*`). */
export type CorsOrigins = '*' | readonly string[];

// RFC 6454's serialization of an origin: lower-case scheme and host (a name, IPv4 or [IPv6]), an optional
// port, nothing after it. Browsers send `Origin` this way, and it is compared as text.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

/** Whether a browser could send this text as its `Origin`: for http(s), also without the scheme's default port. */
function isSerializedOrigin(origin: string): boolean {
  if (!ORIGIN.test(origin)) return false;
  if (!/^https?:/.test(origin)) return true;
  return URL.canParse(origin) && new URL(origin).origin === origin;
}

/** CORS_ORIGINS: comma-separated origins (`https://app.example`, `http://localhost:5173`), or `*` alone. */
export const corsOrigins: SettingValue<CorsOrigins> = reading<CorsOrigins>((text) => {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  if (origins.length === 0) return { problems: ['must name at least one origin, or be *'] };
  if (origins.includes('*'))
    return origins.length === 1 ? { value: '*' } : { problems: ['must be * alone, or origins without *'] };
  const problems = origins
    .filter((origin) => !isSerializedOrigin(origin))
    .map(
      (origin) =>
        `must hold origins as a browser sends them, scheme://host[:port] in lower case without a path, a trailing slash or the scheme's default port, not "${origin}"`,
    );
  return problems.length > 0 ? { problems } : { value: [...new Set(origins)] };
});
