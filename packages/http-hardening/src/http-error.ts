/**
 * A refusal of the request, thrown by this package's middleware. It follows Koa's convention (what
 * `ctx.throw` makes): `status`, `expose` (the message is meant for the client) and `headers` to send
 * with the answer, so Koa's own error handler, or any of the app's, answers it. A class of its own
 * rather than http-errors', so that its declarations need nothing installed beside this package.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly expose = true;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}
