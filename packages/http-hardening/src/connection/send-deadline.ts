import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HardeningLogger } from '../logger.ts';

/**
 * Cuts off a client that does not read its answers: a connection whose answer bytes have waited
 * in the server's memory (the kernel's buffers full) for `timeoutMs` without a moment where all
 * were sent is destroyed. Without it, a client that stops reading a large answer (one any client may
 * ask for, a page's script) holds its connection and the answer's memory for ever: Node's request
 * and headers timeouts only cover what the client sends.
 *
 * One sweep over the open connections every eighth of `timeoutMs`, rather than a timer per answer:
 * the timer, and the two listeners that set and cleared it, cost 3% of a small JSON service's work
 * on every request (counted under callgrind), for the rare client that stalls. A connection is thus
 * cut off between `timeoutMs` and a quarter later. The sweep ends when the server closes, or when
 * the function returned is called.
 */
export function watchSendDeadline(server: Server, timeoutMs: number, logger: HardeningLogger): () => void {
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
  const stop = (): void => clearInterval(timer);
  server.once('close', stop);
  return stop;
}
