import { urlToHttpOptions } from 'node:url';
import { context, propagation, type TextMapSetter } from '@opentelemetry/api';
import { Agent, type Dispatcher } from 'undici';
import { signatureHeader } from './signature.ts';
import { errorTypeOf } from './tracing.ts';

/** One delivery to send: the event's id is `webhook-id`, the same on every attempt. */
export interface Delivery {
  readonly url: string;
  readonly eventId: string;
  /** The exact JSON text sent, and signed. */
  readonly body: string;
}

export type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  /** 410 Gone: the receiver wants no more of this event at this URL. */
  | { readonly kind: 'gone'; readonly status: 410 }
  | {
      readonly kind: 'failed';
      /** What went wrong, for the log: a status, a timeout, a refused connection. */
      readonly reason: string;
      /** Its class, for a trace's `error.type`: the status as text, `timeout`, an errno code. */
      readonly errorType: string;
      readonly status?: number;
      /** From a Retry-After header on 429 or 503. */
      readonly retryAfterMs?: number;
    }
  /** Given up by us (the service is stopping), not by the receiver: the attempt is to be made again. */
  | { readonly kind: 'abandoned' };

export interface AttemptOptions {
  readonly keys: readonly Buffer[];
  /** The whole attempt (connect, send, answer) is abandoned after this long. */
  readonly timeoutMs: number;
  /** Seconds since the epoch, for `webhook-timestamp`. */
  readonly now?: () => number;
  /** Aborted: the request is destroyed at once, and the outcome is `abandoned`. */
  readonly signal?: AbortSignal | undefined;
}

/** Retry-After: delay-seconds or an HTTP-date (RFC 9110), in ms from now; undefined when unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1_000;
  // An HTTP-date names its day and ends in GMT (IMF-fixdate, and the obsolete forms that do).
  if (!/^[A-Za-z]{3}.*GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Connections kept open between deliveries, per receiver: at most this many attempts at once to one. */
const MAX_SOCKETS_PER_RECEIVER = 64;
/** undici's dispatcher, not node:http's client: less CPU a delivery (bench/PROFILE.md, "The webhook"). */
const agent = new Agent({ connections: MAX_SOCKETS_PER_RECEIVER });

class AttemptTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

class AttemptAbandonedError extends Error {
  override readonly name = 'AbortError';
}

function describe(error: unknown): string {
  if (error instanceof AttemptTimeoutError) return 'no answer in time';
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
}

/** Where a request to one URL goes, worked out once per URL: a job's URL is one of the few configured. */
interface Target {
  /** `http(s)://host:port`, without the user and password. */
  readonly origin: string;
  /** The path and the query. */
  readonly path: string;
  /** `authorization` when the URL carries a user or a password; undici adds `host` itself. */
  readonly headers: readonly string[];
}

const targets = new Map<string, Target>();
const MAX_TARGETS_KEPT = 1_000;

/** Throws as `new URL` does on a URL it cannot read: the attempt fails on it, naming why. */
function targetOf(href: string): Target {
  let target = targets.get(href);
  if (target === undefined) {
    const url = new URL(href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${url.protocol} is not http: or https:`);
    const { auth } = urlToHttpOptions(url);
    target = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      headers:
        typeof auth === 'string' ? ['authorization', `Basic ${Buffer.from(auth).toString('base64')}`] : [],
    };
    if (targets.size >= MAX_TARGETS_KEPT) targets.clear();
    targets.set(href, target);
  }
  return target;
}

/** Puts a propagator's headers (traceparent, tracestate) into a request's header array. */
const intoHeaders: TextMapSetter<string[]> = {
  set: (headers, key, value) => void headers.push(key, value),
};

/**
 * One POST through undici's dispatcher with keep-alive: it never follows a redirect, and reads no body
 * into memory. The deadline covers the whole attempt, the answer's body included: read to its end, so
 * the connection is kept. At the deadline or an abort it settles at once and aborts the request as
 * soon as undici has handed it a connection.
 */
function post(
  target: Target,
  headers: string[],
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AttemptAbandonedError());
      return;
    }
    let controller: Dispatcher.DispatchController | undefined;
    let ended: Error | true | undefined;
    let status = 0;
    let retryAfter: string | null = null;
    const settled = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
    };
    const fail = (error: Error): void => {
      if (ended !== undefined) return;
      ended = error;
      settled();
      reject(error);
      controller?.abort(error);
    };
    const abandon = (): void => fail(new AttemptAbandonedError());
    const timer = setTimeout(() => fail(new AttemptTimeoutError()), timeoutMs);
    signal?.addEventListener('abort', abandon, { once: true });
    agent.dispatch(
      { origin: target.origin, path: target.path, method: 'POST', headers, body },
      {
        onRequestStart(started) {
          controller = started;
          if (ended instanceof Error) started.abort(ended);
        },
        onResponseStart(_, statusCode, answer) {
          status = statusCode;
          const value = answer['retry-after'];
          retryAfter = typeof value === 'string' ? value : null;
        },
        onResponseData() {},
        onResponseEnd() {
          if (ended !== undefined) return;
          ended = true;
          settled();
          resolve({ status, retryAfter });
        },
        onResponseError(_, error) {
          fail(error);
        },
      },
    );
  });
}

/**
 * POSTs one event once, signed (Standard Webhooks). 2xx is delivered; a redirect is not followed
 * and counts as a failure, like any other status, a timeout or a network error.
 */
export async function attemptDelivery(delivery: Delivery, options: AttemptOptions): Promise<AttemptOutcome> {
  const timestamp = options.now?.() ?? Math.floor(Date.now() / 1000);
  try {
    const target = targetOf(delivery.url);
    const headers = [
      ...target.headers,
      'content-type',
      'application/json',
      'user-agent',
      'plant-store-webhooks/1',
      'webhook-id',
      delivery.eventId,
      'webhook-timestamp',
      String(timestamp),
      'webhook-signature',
      signatureHeader(options.keys, delivery.eventId, timestamp, delivery.body),
    ];
    // traceparent (and tracestate) of the span under way, so the receiver continues the trace; none
    // when tracing is off. Outside the signature, which covers the id, the timestamp and the body.
    propagation.inject(context.active(), headers, intoHeaders);
    const { status, retryAfter } = await post(
      target,
      headers,
      delivery.body,
      options.timeoutMs,
      options.signal,
    );
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status === 410) return { kind: 'gone', status };
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter) : undefined;
    const failed = {
      kind: 'failed',
      status,
      reason: `answered ${status}`,
      errorType: String(status),
    } as const;
    return retryAfterMs === undefined ? failed : { ...failed, retryAfterMs };
  } catch (error) {
    if (error instanceof AttemptAbandonedError) return { kind: 'abandoned' };
    return {
      kind: 'failed',
      reason: describe(error),
      errorType: error instanceof AttemptTimeoutError ? 'timeout' : errorTypeOf(error),
    };
  }
}
