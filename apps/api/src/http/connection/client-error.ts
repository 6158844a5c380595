import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { VERSION_NOT_SUPPORTED } from '../middleware/request-head.ts';
import { type Refusal, refuseAfterTurns } from './turns.ts';

/** What Node's parser says it refused: llhttp adds the reason to its errors. */
type ParserError = NodeJS.ErrnoException & { readonly reason?: string };

function refusalFor(error: ParserError): Refusal {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, message: 'request header fields too large' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'request timeout' };
  // A well-formed version llhttp does not take (HTTP/1.2, HTTP/3.0): unsupported, not malformed.
  if (error.code === 'HPE_INVALID_VERSION' && error.reason === 'Invalid HTTP version')
    return VERSION_NOT_SUPPORTED;
  return { status: 400, message: 'bad request' };
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
export function answerClientError(logger: Logger): (error: ParserError, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error);
    const { status } = refusal;
    const first = refuseAfterTurns(socket as Socket, refusal, (answeredByRequest) => {
      // A request cut off in its body answered (and logged) the refusal itself.
      if (answeredByRequest) (socket as Socket).destroySoon();
      else writeRawAnswer(socket, refusal);
    });
    // Only the code is logged: the error also carries the raw bytes, which may hold the credential.
    if (first) logger.info({ code: error.code, status }, 'malformed request refused');
  };
}
