import type { Caller } from '../auth/credentials.ts';

/** What the middleware of one request hand to each other through ctx.state. */
export interface AppState {
  /** Who made the request, once its credential was accepted: for its log line. */
  caller?: Caller;
  /** The request's id, echoed in X-Request-Id and written to its log line. */
  requestId?: string;
  /** The error behind a 5xx answer, for the request's log line. */
  failure?: unknown;
  /** The parsed JSON body, set by @plant-store/http-hardening's jsonBody. */
  body?: unknown;
}
