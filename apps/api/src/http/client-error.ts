import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * The server's 'clientError' listener: a request Node's parser refused (malformed request line or
 * headers, headers too large, too slow) never reaches Koa, so its JSON Error answer is written here,
 * and the connection closed, as its framing can no longer be trusted.
 */
export function answerClientError(logger: Logger): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    // Only the code is logged: the error also carries the raw bytes, which may hold the credential.
    const status = statusFor(error.code);
    logger.info({ code: error.code, status }, 'malformed request refused');
    // A response already under way on this socket (Node's private _httpMessage) must not be interleaved.
    const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({
      error: status,
      message: (STATUS_CODES[status] ?? 'bad request').toLowerCase(),
    });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  };
}
