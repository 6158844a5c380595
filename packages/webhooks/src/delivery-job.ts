import { type RecordedEvent, stringifyExactJson } from '@plant-store/domain';
import type { TraceCarrier } from './tracing.ts';

/** One event for one URL, as a queue keeps it between attempts (plain JSON). */
export interface DeliveryJob {
  readonly eventId: string;
  readonly url: string;
  /** The NewPlant JSON, exact: sent and signed as it is. */
  readonly body: string;
  /** When the plant was stored (ISO 8601), for the age of the oldest undelivered event. */
  readonly recordedAt: string;
  /** Attempts made before this one: 0 for the first. */
  readonly attempt: number;
  /**
   * The W3C trace context of the create that recorded the event (RecordedEvent.traceContext), kept
   * through retries, the dead queue and a redelivery: every attempt continues that trace.
   */
  readonly traceContext?: TraceCarrier;
}

/**
 * Deliveries queued together as one job: a queue's work on its rows (written when queued, fetched,
 * completed) is per job, not per delivery, so a relay's events go in few jobs.
 */
export interface DeliveryBatch {
  /** When the oldest of them was recorded (ISO 8601): the backlog reads it from the job. */
  readonly recordedAt: string;
  readonly deliveries: readonly DeliveryJob[];
}

/** What a job of the queue holds: one delivery (a retry, a redelivery), or a batch of them. */
export type QueuedDeliveries = DeliveryJob | DeliveryBatch;

export function isBatch(data: QueuedDeliveries): data is DeliveryBatch {
  return Array.isArray((data as Partial<DeliveryBatch>).deliveries);
}

export function deliveriesOf(data: QueuedDeliveries): readonly DeliveryJob[] {
  return isBatch(data) ? data.deliveries : [data];
}

/**
 * The deliveries in batches of at most `maxCount`, whose bodies take at most `maxBytes` together
 * (a larger body has a batch of its own), in their order.
 */
export function batched(
  deliveries: readonly DeliveryJob[],
  maxCount: number,
  maxBytes: number,
): DeliveryBatch[] {
  const batches: DeliveryBatch[] = [];
  let current: DeliveryJob[] = [];
  let bytes = 0;
  let oldest = '';
  const close = () => {
    if (current.length > 0) batches.push({ recordedAt: oldest, deliveries: current });
    current = [];
    bytes = 0;
    oldest = '';
  };
  for (const delivery of deliveries) {
    const size = Buffer.byteLength(delivery.body);
    if (current.length >= maxCount || (current.length > 0 && bytes + size > maxBytes)) close();
    current.push(delivery);
    bytes += size;
    // ISO 8601 in UTC, all of one length: their order is the text's.
    if (oldest === '' || delivery.recordedAt < oldest) oldest = delivery.recordedAt;
  }
  close();
  return batches;
}

/** The webhook body: the NewPlant JSON with the id as an exact integer. */
function webhookBody(recorded: RecordedEvent): string {
  return stringifyExactJson(recorded.event.plant);
}

/** The first attempt of each event at each URL. */
export function firstAttempts(events: readonly RecordedEvent[], urls: readonly string[]): DeliveryJob[] {
  return events.flatMap((recorded) => {
    const body = webhookBody(recorded);
    const recordedAt = recorded.recordedAt.toISOString();
    const { traceContext } = recorded;
    return urls.map((url) =>
      traceContext === undefined
        ? { eventId: recorded.id, url, body, recordedAt, attempt: 0 }
        : { eventId: recorded.id, url, body, recordedAt, attempt: 0, traceContext },
    );
  });
}
