// @plant-store/http-hardening as a service that is not Koa could use it: its server-level parts on a plain
// node:http server, and its exact JSON reader.
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import {
  type HardeningLogger,
  hardenServer,
  jsonNumberValue,
  parseJsonShallow,
} from '@plant-store/http-hardening';

const said: string[] = [];
const logger: HardeningLogger = {
  info: (_fields, message) => said.push(message),
  warn: (_fields, message) => said.push(message),
};
const server = createServer();
const hardened = hardenServer(
  server,
  (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ path: req.url }));
  },
  { logger, maxConnections: 10, sendTimeoutMs: 1_000 },
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

/** Sends the bytes on a fresh connection and resolves with what came back once the server closed it. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(bytes);
  });
}
const statusesAndBodies = (received: string) => ({
  statuses: [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1])),
  bodies: received.match(/\{[^}]*\}/g),
});

// Three requests pipelined: answered in order. A request, then bytes the parser refuses: the request is
// answered first, then the 400.
const pipelined = await exchange(
  'GET /first HTTP/1.1\r\nHost: a\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n' +
    'GET /third HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
);
const refused = await exchange('GET /valid HTTP/1.1\r\nHost: a\r\n\r\nGARBAGE\r\n\r\n');
await new Promise((resolve) => server.close(resolve));

const read = parseJsonShallow(
  '{"id":9223372036854775807,"nested":[1,2],"other":true}',
  new Set(['id', 'nested']),
);
const { id, nested } = read as { id: unknown; nested: unknown };

console.log(
  JSON.stringify({
    pipelined: statusesAndBodies(pipelined),
    refused: statusesAndBodies(refused),
    said,
    maxConnections: hardened.maxConnections,
    read: { id: [typeof id, String(id)], nested },
    fraction: jsonNumberValue('4503599627370497.5'),
  }),
);
