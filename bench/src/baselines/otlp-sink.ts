// The collector of the `tracing` part: a bare node:http server that takes OTLP/HTTP trace exports,
// reads each body to its end and answers 200 at once, with an empty body in the request's content
// type (an empty ExportTraceServiceResponse), so that what the service spends on exporting is its own.
// Each side exports to a path of its own (OTEL_EXPORTER_OTLP_ENDPOINT=<sink>/<side>, the exporter adds
// /v1/traces); the sink counts, per side, the exports, their bytes as sent, their spans and the
// server spans among them (one per sampled request), from protobuf or JSON bodies alike.
// `GET /count` answers {"<side>": {"exports", "bytes", "spans", "serverSpans", "unread", "other"}, ...}:
// any other signal (/v1/metrics, /v1/logs) is answered 200 and counted as `other`. `GET /healthz` 200.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { listenLikeTheService } from './common.ts';

interface Counts {
  exports: number;
  bytes: number;
  spans: number;
  serverSpans: number;
  /** Bodies whose spans could not be read: counted in exports and bytes only. */
  unread: number;
  other: number;
}

const SERVER = 2; // SpanKind SPAN_KIND_SERVER in OTLP's enum, in protobuf and JSON alike.
const counts = new Map<string, Counts>();

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

function record(side: string, signal: string, type: string, encoding: string | undefined, body: Buffer) {
  let mine = counts.get(side);
  if (mine === undefined) {
    mine = { exports: 0, bytes: 0, spans: 0, serverSpans: 0, unread: 0, other: 0 };
    counts.set(side, mine);
  }
  if (signal !== 'traces') {
    mine.other += 1;
    return;
  }
  mine.exports += 1;
  mine.bytes += body.length;
  try {
    const plain = encoding === 'gzip' ? gunzipSync(body) : body;
    const found = type.startsWith('application/json') ? countJson(plain) : countProtobuf(plain);
    mine.spans += found.spans;
    mine.serverSpans += found.serverSpans;
  } catch {
    mine.unread += 1;
  }
}

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const text = req.url === '/count' ? JSON.stringify(Object.fromEntries(counts)) : '{"status":"ok"}';
    res.writeHead(req.url === '/count' || req.url === '/healthz' ? 200 : 404, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  // "/<side>/v1/traces": the side's own prefix, then the signal.
  const [, side = '', signal = 'unknown'] = /^\/?(.*?)\/?v1\/([a-z]+)$/.exec(req.url ?? '') ?? [];
  const type = (req.headers['content-type'] ?? 'application/x-protobuf').split(';')[0] as string;
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    record(side, signal, type, req.headers['content-encoding'], Buffer.concat(chunks));
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': 0 });
    res.end();
  });
});
server.keepAliveTimeout = 30_000;

await listenLikeTheService(server);
