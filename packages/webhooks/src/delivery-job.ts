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
