import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HardeningLogger } from '../logger.ts';
import { VERSION_NOT_SUPPORTED } from '../middleware/request-head.ts';
import { type FormatRawAnswer, writeRawAnswer } from './raw-answer.ts';
import { isHeldByTurns, type Refusal, refuseAfterTurns } from './turns.ts';

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

/**
 * The server's 'clientError' listener: bytes Node's parser refused (a malformed request line,
 * headers or chunk, headers too large, a request too slow) never reach the app, so their answer is
 * written here, and the connection closed, as its framing can no longer be trusted. The requests
 * the client sent before those bytes are answered first (turns.ts).
 */
export function answerClientError(
  logger: HardeningLogger,
  format: FormatRawAnswer,
): (error: ParserError, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    // Node's header and request timeouts run from a request's first byte, also while the service holds
    // the connection unread behind answers it owes: that time is the service's. Node reports the
    // connection again at its next check; once nothing is owed, a request still incomplete is refused.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isHeldByTurns(socket as Socket)) return;
    const refusal = refusalFor(error);
    const { status } = refusal;
    const first = refuseAfterTurns(socket as Socket, refusal, (answeredByRequest) => {
      // A request cut off in its body answered (and logged) the refusal itself.
      if (answeredByRequest) (socket as Socket).destroySoon();
      else writeRawAnswer(socket, refusal, format);
    });
    // Only the code is logged: the error also carries the raw bytes, which may hold a credential.
    if (first) logger.info({ code: error.code, status }, 'malformed request refused');
  };
}
