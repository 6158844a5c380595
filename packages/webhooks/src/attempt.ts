import { signatureHeader } from './signature.ts';

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
      readonly status?: number;
      /** From a Retry-After header on 429 or 503. */
      readonly retryAfterMs?: number;
    };

export interface AttemptOptions {
  readonly keys: readonly Buffer[];
  /** The whole attempt (connect, send, answer) is abandoned after this long. */
  readonly timeoutMs: number;
  /** Seconds since the epoch, for `webhook-timestamp`. */
  readonly now?: () => number;
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

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * POSTs one event once, signed (Standard Webhooks). 2xx is delivered; a redirect is not followed
 * and counts as a failure, like any other status, a timeout or a network error.
 */
export async function attemptDelivery(delivery: Delivery, options: AttemptOptions): Promise<AttemptOutcome> {
  const timestamp = options.now?.() ?? Math.floor(Date.now() / 1000);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      redirect: 'manual',
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'plant-store-webhooks/1',
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(options.keys, delivery.eventId, timestamp, delivery.body),
      },
      body: delivery.body,
    });
    // Read to the end (within the same deadline), so the connection is kept for the next delivery.
    await response.arrayBuffer();
    const { status } = response;
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    if (status === 410) return { kind: 'gone', status };
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
    return retryAfterMs === undefined
      ? { kind: 'failed', status, reason: `answered ${status}` }
      : { kind: 'failed', status, reason: `answered ${status}`, retryAfterMs };
  } catch (error) {
    return { kind: 'failed', reason: describe(error) };
  }
}
