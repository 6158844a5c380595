// How the OTEL_* settings' text is read. The service hands what is read here to the OpenTelemetry SDK
// (tracing/sdk-options.ts), so a value is refused here when the SDK would read it otherwise, ignore
// it, or choke on it. Messages never show a header's value.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as v from 'valibot';
import { reading, type SettingValue } from './setting.ts';
import { readSmallFile } from './small-file.ts';

// An HTTP field name (RFC 9110's token), and what a field value may hold (Node refuses the rest).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `name=value,…`, values percent-encoded. Read as the exporter reads them
 * (core's parseKeyPairsIntoRecord, which the SDK still merges under ours), refusing what it would drop
 * or cut short: a pair without a value, a value with `;` (read as the start of metadata). Never a value
 * in a message: they are API keys.
 */
export const otlpHeaders: SettingValue<Readonly<Record<string, string>>> = reading((text) => {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  const problems: string[] = [];
  text.split(',').forEach((pair, index) => {
    if (pair.trim() === '') return;
    const nth = `pair ${index + 1}`;
    const equals = pair.indexOf('=');
    const name = equals <= 0 ? undefined : decoded(pair.slice(0, equals).trim());
    if (name === undefined || !HEADER_NAME.test(name)) {
      problems.push(`must be name=value pairs with a header name in each: ${nth} is not (not shown)`);
      return;
    }
    const written = pair.slice(equals + 1).trim();
    const value = decoded(written);
    if (written.includes(';')) {
      problems.push(`gives ${name} a value with ";", which is read as metadata: write it %3B`);
    } else if (value === undefined) {
      problems.push(`gives ${name} a value that is not valid percent-encoding`);
    } else if (value === '') {
      problems.push(`gives ${name} no value`);
    } else if (!HEADER_VALUE.test(value)) {
      problems.push(`gives ${name} a value with a character a header cannot carry`);
    } else if (seen.has(name.toLowerCase())) {
      problems.push(`names ${name} twice`);
    } else {
      seen.add(name.toLowerCase());
      headers[name] = value;
    }
  });
  return problems.length > 0 ? { problems } : { value: headers };
});

// The resource detector's bound on a key and on a value.
const MAX_ATTRIBUTE_LENGTH = 255;

/**
 * OTEL_RESOURCE_ATTRIBUTES: `key=value,…`, percent-encoded, by the specification's rules (which the
 * SDK's detector follows, discarding the whole variable at the first mistake).
 */
export const resourceAttributes: SettingValue<Readonly<Record<string, string>>> = reading((text) => {
  const attributes: Record<string, string> = {};
  const problems: string[] = [];
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const parts = entry.split('=');
    const key = parts.length === 2 ? decoded((parts[0] as string).trim()) : undefined;
    const value = parts.length === 2 ? decoded((parts[1] as string).trim()) : undefined;
    if (key === undefined || value === undefined || key === '') {
      problems.push(
        `must be key=value pairs, percent-encoded (a "," or "=" in a key or value as %2C, %3D), not "${entry}"`,
      );
    } else if (key.length > MAX_ATTRIBUTE_LENGTH || value.length > MAX_ATTRIBUTE_LENGTH) {
      problems.push(`gives ${key.slice(0, 40)} a key or value over ${MAX_ATTRIBUTE_LENGTH} characters`);
    } else {
      attributes[key] = value;
    }
  }
  return problems.length > 0 ? { problems } : { value: attributes };
});

/**
 * OTEL_PROPAGATORS: W3C trace context, or nothing. Baggage (and b3) are refused: a caller's baggage is
 * never read, so never passed on to a webhook receiver, an identity provider or a stored event.
 */
export const propagators: SettingValue<'tracecontext' | 'none'> = v.pipe(
  v.string(),
  v.check(
    (text) => ['tracecontext', 'none'].includes(propagatorsOf(text)),
    (issue) =>
      `must be tracecontext or none: a caller's baggage is never passed on (docs/observability.md), not "${issue.input}"`,
  ),
  v.transform((text) => propagatorsOf(text) as 'tracecontext' | 'none'),
);

/** The names listed, in lower case, each once. */
function propagatorsOf(text: string): string {
  const names = text.split(',').map((name) => name.trim().toLowerCase());
  return [...new Set(names.filter((name) => name !== ''))].join(',');
}

// A certificate or key file is a few KiB; a bound keeps a device (/dev/zero) from filling memory.
const MAX_PEM_BYTES = 1024 * 1024;

/** A PEM file, read at start and checked with `usable`, which throws on what TLS could not use. */
function pemFile(what: string, usable: (bytes: Buffer) => unknown): SettingValue<Buffer> {
  return reading((path) => {
    const read = readSmallFile(path, MAX_PEM_BYTES);
    if ('notRegular' in read) return { problems: [`${path} is not a regular file`] };
    if ('tooLarge' in read) return { problems: [`${path} is larger than ${MAX_PEM_BYTES} bytes`] };
    if ('why' in read) return { problems: [`${path} could not be read (${read.why})`] };
    try {
      usable(read.bytes);
    } catch {
      return { problems: [`${path} holds no ${what}`] };
    }
    return { value: read.bytes };
  });
}

/** A certificate (chain) file: the collector's CA, or the client's certificate. */
export const certificateFile = pemFile('PEM certificate', (bytes) => new X509Certificate(bytes));

/** The client's private key file, unencrypted (the exporter has no passphrase to open it with). */
export const privateKeyFile = pemFile('unencrypted PEM private key', (bytes) => createPrivateKey(bytes));

/** The exporters OTEL_TRACES_EXPORTER may name: OTLP over HTTP, and the log (`console`). */
export type TraceExporter = 'otlp' | 'console';

/**
 * OTEL_TRACES_EXPORTER: `otlp`, `console`, both as a list, or `none` (no exporter: no tracing). The
 * specification's others (zipkin) are not part of this service; `none` in a list with others is refused,
 * where the SDK would fall back to otlp with a warning.
 */
export const traceExporters: SettingValue<readonly TraceExporter[]> = reading((text) => {
  const names = [...new Set(text.split(',').map((name) => name.trim().toLowerCase()))].filter(
    (name) => name !== '',
  );
  const unknown = names.filter((name) => !['otlp', 'console', 'none'].includes(name));
  if (unknown.length > 0) {
    return {
      problems: [`must be otlp, console (spans in the log), both, or none, not "${unknown.join(',')}"`],
    };
  }
  if (names.includes('none')) {
    return names.length === 1
      ? { value: [] }
      : { problems: ['lists none with other exporters: none means no exporter at all'] };
  }
  return { value: names as TraceExporter[] };
});
