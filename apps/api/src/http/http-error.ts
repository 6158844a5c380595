/**
 * A failure of the HTTP exchange itself (credential, media type, size, JSON), raised by the
 * middleware that reads the request and turned into a response by error-responses.ts alone.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** The header of every 503 the service answers: one pace, so that clients learn one. */
export const RETRY_LATER: Readonly<Record<string, string>> = { 'Retry-After': '5' };
