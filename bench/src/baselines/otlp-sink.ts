// The collector of the `tracing` part: a bare node:http server that takes OTLP/HTTP trace exports,
// reads each body to its end and answers 200 at once, with an empty body in the request's content
// type (an empty ExportTraceServiceResponse), so that what the service spends on exporting is its own.
// Each side exports to a path of its own (OTEL_EXPORTER_OTLP_ENDPOINT=<sink>/<side>, the exporter adds
// /v1/traces); the sink counts, per side, the exports, their bytes as sent, their spans and the
// server spans among them (one per sampled request), from protobuf or JSON bodies alike.
// `GET /count` answers {"<side>": {"exports", "bytes", "spans", "serverSpans", "unread", "other"}, ...}:
// any other signal (/v1/metrics, /v1/logs) is answered 200 and counted as `other`. `GET /healthz` 200.
import { createServer } from 'node:http';
import { listenLikeTheService } from './common.ts';
import { countSpans } from './otlp-spans.ts';

interface Counts {
  exports: number;
  bytes: number;
  spans: number;
  serverSpans: number;
  /** Bodies whose spans could not be read: counted in exports and bytes only. */
  unread: number;
  other: number;
}

const counts = new Map<string, Counts>();

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
    const found = countSpans(type, encoding, body);
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
