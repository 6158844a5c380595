import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Refusal } from './turns.ts';

/** The body of an answer written straight to a socket, and its media type. */
export interface RawAnswer {
  readonly contentType: string;
  readonly body: string;
}

/** Makes the body of an answer written straight to a socket (a parser refusal, CONNECT) from its status and message. */
export type FormatRawAnswer = (status: number, message: string) => RawAnswer;

/** The default shape: `{"error": <status>, "message": "..."}` as `application/json`. */
export const errorBodyAnswer: FormatRawAnswer = (status, message) => ({
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify({ error: status, message }),
});

/** An answer written straight to the socket, then the connection closed: no request object exists for it. */
export function writeRawAnswer(
  socket: Duplex,
  refusal: Refusal,
  format: FormatRawAnswer,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { contentType, body } = format(refusal.status, refusal.message);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      `Content-Type: ${contentType}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}
