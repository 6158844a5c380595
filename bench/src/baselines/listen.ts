// Baselines start like the service: PORT (0: any free port) and HOST from the environment, one JSON
// line with msg 'listening' and the url on stdout when ready, SIGTERM to stop.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenLikeTheService(server: Server, onStop: () => Promise<void> = async () => {}) {
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? '0');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}`;
  process.stdout.write(`${JSON.stringify({ level: 30, msg: 'listening', url })}\n`);
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    onStop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
