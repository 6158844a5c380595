import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';

/**
 * Cuts off a client that does not read its answer: once the whole answer is handed to the socket
 * ('prefinish'), the client must take it within `timeoutMs` ('close'), or the connection is
 * destroyed. Without it, a client that stops reading (the 1.7 MB Swagger UI bundle is served
 * without a token) holds its connection and the answer's memory for ever: Node's request and
 * headers timeouts only cover what the client sends.
 */
export function withSendDeadline(
  listener: RequestListener,
  timeoutMs: number,
  logger: Logger,
): RequestListener {
  return (req, res) => {
    res.once('prefinish', () => {
      if (res.writableFinished) return;
      const deadline = setTimeout(() => {
        // The request's own log line was written when its answer was; this says how it ended.
        logger.warn(
          {
            method: req.method,
            path: req.url?.split('?', 1)[0],
            unsentBytes: res.socket?.writableLength,
            timeoutMs,
          },
          'answer not read in time: connection cut off',
        );
        res.destroy();
      }, timeoutMs);
      deadline.unref();
      res.once('close', () => clearTimeout(deadline));
    });
    listener(req, res);
  };
}
