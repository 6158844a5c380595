// How many spans an OTLP/HTTP trace export holds, and how many of them are SERVER spans (one per
// sampled request), read from its protobuf or JSON body without a generated schema: the sink's counts.
import { gunzipSync } from 'node:zlib';

const SERVER = 2; // SpanKind SPAN_KIND_SERVER in OTLP's enum, in protobuf and JSON alike.

/** Each field of a protobuf message in `bytes[start, end)`: its number, and its value (a length-delimited one as a range). */
function* fields(bytes: Buffer, start = 0, end = bytes.length) {
  let at = start;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated varint');
      // Past 2^53 the value is only skipped over (a length or a kind never is that large).
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < end) {
    const key = varint();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    if (wire === 0) yield { field, value: varint(), start: at, end: at };
    else if (wire === 2) {
      const length = varint();
      yield { field, value: length, start: at, end: at + length };
      at += length;
    } else if (wire === 1 || wire === 5) at += wire === 1 ? 8 : 4;
    else throw new Error(`wire type ${wire}`);
    if (at > end) throw new Error('truncated field');
  }
}

/** ExportTraceServiceRequest: resource_spans (1) > scope_spans (2) > spans (2) > kind (6). */
function countProtobuf(body: Buffer) {
  let spans = 0;
  let serverSpans = 0;
  const within = (outer: { start: number; end: number }, field: number) =>
    [...fields(body, outer.start, outer.end)].filter((inner) => inner.field === field);
  for (const resource of within({ start: 0, end: body.length }, 1))
    for (const scope of within(resource, 2))
      for (const span of within(scope, 2)) {
        spans += 1;
        if (within(span, 6).some((kind) => kind.value === SERVER)) serverSpans += 1;
      }
  return { spans, serverSpans };
}

interface JsonExport {
  resourceSpans?: { scopeSpans?: { spans?: { kind?: number | string }[] }[] }[];
}

function countJson(body: Buffer) {
  const spans = ((JSON.parse(body.toString('utf8')) as JsonExport).resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []),
  );
  const server = spans.filter((span) => span.kind === SERVER || span.kind === 'SPAN_KIND_SERVER');
  return { spans: spans.length, serverSpans: server.length };
}

/** The spans of a body as the sink received it (`content-type` without parameters, `content-encoding`); throws when unreadable. */
export function countSpans(type: string, encoding: string | undefined, body: Buffer) {
  const plain = encoding === 'gzip' ? gunzipSync(body) : body;
  return type === 'application/json' ? countJson(plain) : countProtobuf(plain);
}
