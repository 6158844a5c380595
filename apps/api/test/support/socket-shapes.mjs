// Run with --allow-natives-syntax: whether a sampled request's socket and an unsampled one's are left
// one shape (V8's map) by the server span, as Node's HTTP code stays fast only while they are.
import { Agent, createServer, request } from 'node:http';
import { startInMemoryTracing } from '@plant-store/test-support';
import { startServerSpan } from '../../src/tracing/server-span.ts';

// V8's own test of two objects' maps; written in a Function so that the file parses without the flag.
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
const tracing = startInMemoryTracing();
const sockets = [];
const server = createServer((req, res) => {
  const traced = startServerSpan(req, 'socket-shapes');
  traced.end(204, '/socket-shapes', undefined);
  sockets.push(req.socket);
  res.statusCode = 204;
  res.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const agents = [new Agent({ keepAlive: true }), new Agent({ keepAlive: true })];
// Each on a connection of its own, kept open: the default sampler records the first (no parent), and
// follows the second's unsampled `traceparent`.
const send = (agent, headers) =>
  new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: server.address().port, agent, headers }, (answer) => {
      answer.resume();
      answer.on('end', resolve);
    });
    sent.on('error', reject).end();
  });
await send(agents[0], {});
await send(agents[1], { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' });
const recorded = tracing.spans().length;
const sameShape = haveSameMap(sockets[0], sockets[1]);
for (const agent of agents) agent.destroy();
server.close();
await tracing.stop();
process.stdout.write(JSON.stringify({ recorded, sockets: sockets.length, sameShape }));
