import type { PlantCreated } from './plant-created.ts';

/** An event as the outbox keeps it: its identity (the same on every delivery of it) and when it was recorded. */
export interface RecordedEvent {
  /** Unique, stable: receivers deduplicate on it. */
  readonly id: string;
  readonly recordedAt: Date;
  readonly event: PlantCreated;
  /**
   * The trace context (W3C `traceparent`, and `tracestate` when there is one) of the work that
   * recorded the event, so that its delivery continues that trace; absent when tracing is off.
   */
  readonly traceContext?: Readonly<Record<string, string>> | undefined;
}

/**
 * The events recorded with the plants (PlantRepository.insertIfAbsent), waiting to be handed on to
 * whatever delivers them.
 */
export interface PlantEventOutbox {
  /**
   * Takes up to `limit` of the oldest events and hands them to `forward`, in one transaction where the
   * adapter has them: they leave the outbox if and only if `forward` resolves. Concurrent relays
   * (several processes included) never take one event twice. Resolves with how many events were
   * handed on. (An adapter may hand `forward` more, such as its transaction to write in: that is
   * between it and the deliverer it is composed with.)
   */
  relay(limit: number, forward: (events: readonly RecordedEvent[]) => Promise<void>): Promise<number>;
  /** When the oldest event still in the outbox was recorded; undefined when it is empty. */
  oldestRecordedAt(): Promise<Date | undefined>;
}
