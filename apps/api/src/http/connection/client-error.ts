import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type Refusal, refuseAfterTurns } from './turns.ts';

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/** A JSON Error answer written straight to the socket, then the connection closed. */
export function writeRawAnswer(socket: Duplex, refusal: Refusal, headers: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: refusal.status, message: refusal.message });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}

/**
 * The server's 'clientError' listener: bytes Node's parser refused (a malformed request line,
 * headers or chunk, headers too large, a request too slow) never reach Koa, so their JSON Error
 * answer is written here, and the connection closed, as its framing can no longer be trusted.
 * The requests the client sent before those bytes are answered first (turns.ts).
 */
export function answerClientError(logger: Logger): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = statusFor(error.code);
    const refusal = { status, message: (STATUS_CODES[status] ?? 'bad request').toLowerCase() };
    const first = refuseAfterTurns(socket as Socket, refusal, (answeredByRequest) => {
      // A request cut off in its body answered (and logged) the refusal itself.
      if (answeredByRequest) (socket as Socket).destroySoon();
      else writeRawAnswer(socket, refusal);
    });
    // Only the code is logged: the error also carries the raw bytes, which may hold the credential.
    if (first) logger.info({ code: error.code, status }, 'malformed request refused');
  };
}
