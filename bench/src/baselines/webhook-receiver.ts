// The receiver of the `webhook` target: a bare node:http server that reads each POST to the end and
// answers 204 at once, counting what it got: every request, and the distinct `webhook-id`s among
// them (a redelivery of an event has the same id). It checks nothing else (no signature): it stands
// for the cheapest receiver there can be, so that what the service spends on a delivery is its own.
// `GET /count` answers {"requests", "distinct", "withoutId"}; `GET /healthz` 200.
import { createServer } from 'node:http';
import { listenLikeTheService } from './common.ts';

let requests = 0;
let withoutId = 0;
const ids = new Set<string>();

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const text =
      req.url === '/count' ? JSON.stringify({ requests, distinct: ids.size, withoutId }) : '{"ok":true}';
    res.writeHead(req.url === '/count' || req.url === '/healthz' ? 200 : 404, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  requests += 1;
  const id = req.headers['webhook-id'];
  if (typeof id === 'string' && id !== '') ids.add(id);
  else withoutId += 1;
  // Read to the end, so that the sender's keep-alive connection is usable for its next delivery.
  req.resume();
  req.on('end', () => {
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 30_000;

await listenLikeTheService(server);
