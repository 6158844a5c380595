import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * Cuts off a client that does not read its answers: a connection whose answer bytes have waited
 * in the server's memory (the kernel's buffers full) for `timeoutMs` without a moment where all
 * were sent is destroyed. Without it, a client that stops reading (the 1.7 MB Swagger UI bundle is
 * served without a token) holds its connection and the answers' memory for ever: Node's request
 * and headers timeouts only cover what the client sends.
 *
 * One sweep over the open connections every eighth of `timeoutMs`, rather than a timer per answer:
 * the timer, and the two listeners that set and cleared it, cost 3% of the service's own work on
 * every request (9,000 machine instructions, counted under callgrind), for the rare client that
 * stalls. A connection is thus cut off between `timeoutMs` and a quarter later. Returns the function
 * that stops watching.
 */
export function watchSendDeadline(server: Server, timeoutMs: number, logger: Logger): () => void {
  // Each open connection, and since when (performance.now()) it has had unsent bytes: 0 while none.
  const connections = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, 0);
    socket.once('close', () => connections.delete(socket));
  });
  const sweep = (): void => {
    const now = performance.now();
    for (const [socket, since] of connections) {
      if (socket.writableLength === 0) {
        if (since !== 0) connections.set(socket, 0);
      } else if (since === 0) {
        connections.set(socket, now);
      } else if (now - since >= timeoutMs) {
        // The requests' own log lines were written when their answers were; this says how it ended.
        logger.warn(
          {
            remoteAddress: socket.remoteAddress,
            remotePort: socket.remotePort,
            unsentBytes: socket.writableLength,
            timeoutMs,
          },
          'answer not read in time: connection cut off',
        );
        connections.delete(socket);
        socket.destroy();
      }
    }
  };
  const timer = setInterval(sweep, Math.max(10, Math.floor(timeoutMs / 8)));
  timer.unref();
  return () => clearInterval(timer);
}
