import { ExportTraceServiceRequest } from './otlp-proto.ts';

/**
 * An OTLP AnyValue: int_value is int64, so integers come as bigint and doubles as number, whichever
 * the encoding; bytes as a Uint8Array, a kvlist as an object, an empty value as null.
 */
export type AttributeValue =
  | string
  | number
  | boolean
  | bigint
  | Uint8Array
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = Record<string, AttributeValue>;

export type SpanKindName = 'UNSPECIFIED' | 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';

/** A span as an exporter sent it, the same from either encoding; ids in lower-case hex. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Undefined for a root span. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: SpanKindName;
  readonly attributes: Attributes;
  readonly links: { readonly traceId: string; readonly spanId: string; readonly attributes: Attributes }[];
  readonly events: { readonly name: string; readonly attributes: Attributes }[];
  readonly status: { readonly code: 'UNSET' | 'OK' | 'ERROR'; readonly message?: string };
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly resource: Attributes;
  readonly scope: { readonly name: string; readonly version?: string };
}

// What ExportTraceServiceRequest.toObject gives (camelCase, int64 as bigint, bytes as Uint8Array, enums
// as numbers): fields absent from the message are absent here.
interface AnyValueObject {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: bigint;
  doubleValue?: number;
  arrayValue?: { values?: AnyValueObject[] };
  kvlistValue?: { values?: KeyValueObject[] };
  bytesValue?: Uint8Array;
}
interface KeyValueObject {
  key?: string;
  value?: AnyValueObject;
}
interface SpanObject {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: bigint;
  endTimeUnixNano?: bigint;
  attributes?: KeyValueObject[];
  events?: { name?: string; attributes?: KeyValueObject[] }[];
  links?: { traceId?: Uint8Array; spanId?: Uint8Array; attributes?: KeyValueObject[] }[];
  status?: { code?: number; message?: string };
}
interface RequestObject {
  resourceSpans?: {
    resource?: { attributes?: KeyValueObject[] };
    scopeSpans?: { scope?: { name?: string; version?: string }; spans?: SpanObject[] }[];
  }[];
}

const KINDS: readonly SpanKindName[] = [
  'UNSPECIFIED',
  'INTERNAL',
  'SERVER',
  'CLIENT',
  'PRODUCER',
  'CONSUMER',
];
const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

/** The spans of an ExportTraceServiceRequest in the binary protobuf encoding. Throws when malformed. */
export function decodeProtobufRequest(body: Uint8Array): ReceivedSpan[] {
  return spansOf(ExportTraceServiceRequest.decode(body));
}

/**
 * The spans of an ExportTraceServiceRequest in OTLP/JSON. It is the protobuf JSON mapping but for the
 * ids, which are hex rather than base64: those become bytes first, then protobufjs reads the rest, so
 * both encodings end in the same message and the same normalisation. Throws when malformed.
 */
export function decodeJsonRequest(body: Uint8Array): ReceivedSpan[] {
  const json: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  if (!isObject(json)) throw new TypeError('the body is not a JSON object');
  for (const resourceSpans of arrayAt(json, 'resourceSpans')) {
    for (const scopeSpans of arrayAt(resourceSpans, 'scopeSpans')) {
      for (const span of arrayAt(scopeSpans, 'spans')) {
        hexToBytes(span, ['traceId', 'spanId', 'parentSpanId']);
        for (const link of arrayAt(span, 'links')) hexToBytes(link, ['traceId', 'spanId']);
      }
    }
  }
  return spansOf(ExportTraceServiceRequest.fromObject(json));
}

function spansOf(message: ReturnType<typeof ExportTraceServiceRequest.decode>): ReceivedSpan[] {
  const request = ExportTraceServiceRequest.toObject(message, { longs: BigInt }) as RequestObject;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap(({ scope, spans }) => {
      const scopeName = { name: scope?.name ?? '', ...(scope?.version ? { version: scope.version } : {}) };
      return (spans ?? []).map((span) => toReceivedSpan(span, resource, scopeName));
    });
  });
}

function toReceivedSpan(span: SpanObject, resource: Attributes, scope: ReceivedSpan['scope']): ReceivedSpan {
  const kind = KINDS[span.kind ?? 0];
  if (kind === undefined) throw new RangeError(`span ${span.name}: no span kind ${span.kind}`);
  const code = STATUS_CODES[span.status?.code ?? 0];
  if (code === undefined) throw new RangeError(`span ${span.name}: no status code ${span.status?.code}`);
  const parentSpanId = hex(span.parentSpanId);
  return {
    traceId: requiredId(span.traceId, 'trace', span.name),
    spanId: requiredId(span.spanId, 'span', span.name),
    ...(parentSpanId === '' ? {} : { parentSpanId }),
    name: span.name ?? '',
    kind,
    attributes: attributesOf(span.attributes),
    links: (span.links ?? []).map((link) => ({
      traceId: requiredId(link.traceId, 'link trace', span.name),
      spanId: requiredId(link.spanId, 'link span', span.name),
      attributes: attributesOf(link.attributes),
    })),
    events: (span.events ?? []).map((event) => ({
      name: event.name ?? '',
      attributes: attributesOf(event.attributes),
    })),
    status: { code, ...(span.status?.message ? { message: span.status.message } : {}) },
    startTimeUnixNano: span.startTimeUnixNano ?? 0n,
    endTimeUnixNano: span.endTimeUnixNano ?? 0n,
    resource,
    scope,
  };
}

function attributesOf(keyValues: KeyValueObject[] | undefined): Attributes {
  return Object.fromEntries((keyValues ?? []).map(({ key, value }) => [key ?? '', anyValue(value)]));
}

function anyValue(value: AnyValueObject | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return value.intValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values);
  // A copy: protobufjs gives Buffers, and a plain Uint8Array compares equal whichever way it came.
  if (value.bytesValue !== undefined) return Uint8Array.from(value.bytesValue);
  return null;
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}

function requiredId(bytes: Uint8Array | undefined, what: string, spanName: string | undefined): string {
  const id = hex(bytes);
  if (id === '') throw new TypeError(`span ${spanName}: no ${what} id`);
  return id;
}

function hexToBytes(parent: unknown, keys: readonly string[]): void {
  if (!isObject(parent)) return;
  for (const key of keys) {
    const value = parent[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^(?:[0-9a-f]{2})*$/i.test(value)) {
      throw new TypeError(`${key} is not a hex string: ${JSON.stringify(value)}`);
    }
    parent[key] = Buffer.from(value, 'hex');
  }
}

function arrayAt(parent: unknown, key: string): unknown[] {
  const value = isObject(parent) ? parent[key] : undefined;
  return Array.isArray(value) ? value : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
