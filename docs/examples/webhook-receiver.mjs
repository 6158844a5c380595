// A receiver of the Plant Store's webhook, for trying it locally (docs/webhook.md). Node.js 22 or later,
// and the standardwebhooks package beside it (`npm install standardwebhooks`).
//
//   WEBHOOK_SECRET=whsec_… node webhook-receiver.mjs            # or WEBHOOK_SECRET_FILE=/run/secrets/webhook
//   PORT (default 4000) and HOST (default 127.0.0.1) say where it listens; PORT=0 takes any free port.
//
// It answers 204 to a delivery whose signature it verifies, 401 to one it cannot, and prints one line
// per plant received. Each event is handled once however often it arrives (the service delivers at
// least once): here the ids seen are kept in memory; a real receiver keeps them in its database, for
// longer than the service's retry schedule.
// biome-ignore-all lint/suspicious/noUndeclaredEnvVars: run by hand, outside the workspace, never as a turbo task
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

// JSON.parse hands its reviver the number's source text from Node.js 22 on (see parsePlant).
if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`This receiver needs Node.js 22 or later, for exact int64 ids; this is ${process.version}.`);
  process.exit(1);
}

// The same secret the service signs with: one of WEBHOOK_SECRET's, the whole `whsec_…` text.
const secret = process.env.WEBHOOK_SECRET_FILE
  ? readFileSync(process.env.WEBHOOK_SECRET_FILE, 'utf8').trim()
  : (process.env.WEBHOOK_SECRET ?? '');
if (!secret.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET (or WEBHOOK_SECRET_FILE) to the whsec_… secret the service signs with.');
  process.exit(1);
}
const webhook = new Webhook(secret);
const seen = new Set();
const MAX_BODY_BYTES = 1024 * 1024;

// The plant's id is an int64: JSON.parse would round it past 2^53, so it is read from its digits.
function parsePlant(body) {
  return JSON.parse(body, (key, value, context) => (key === 'id' ? BigInt(context.source) : value));
}

const server = createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', () => {
    // The signature covers the body's exact bytes: verify the text as received, before parsing it.
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      webhook.verify(body, request.headers, { jsonParse: false });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.error(`refused ${request.headers['webhook-id'] ?? '(no webhook-id)'}: ${error.message}`);
      response.writeHead(401).end();
      return;
    }
    const eventId = request.headers['webhook-id'];
    if (seen.has(eventId)) {
      console.log(`again ${eventId}: already handled`);
    } else {
      seen.add(eventId);
      const plant = parsePlant(body);
      console.log(`plant ${plant.id} ${JSON.stringify(plant.name)} (event ${eventId})`);
    }
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}`);
});
process.on('SIGINT', () => server.close());
process.on('SIGTERM', () => server.close());
