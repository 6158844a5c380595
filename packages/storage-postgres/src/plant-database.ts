import type { Generated } from 'kysely';

/** The plants table as kysely sees it. `id` is int8, read back as an exact bigint. */
export interface PlantsTable {
  id: bigint;
  name: string;
  /** NULL when the plant has no tag; '' is an empty tag. */
  tag: string | null;
  created_at: Generated<Date>;
}

/** The outbox: one row per plant created, until it is handed on for delivery. */
export interface PlantEventsTable {
  seq: Generated<bigint>;
  event_id: Generated<string>;
  plant_id: bigint;
  name: string;
  tag: string | null;
  recorded_at: Generated<Date>;
  /** The W3C carrier of the create that recorded it; NULL when it was not traced. */
  trace_context: Record<string, string> | null;
}

/** The tables of the plant store, for `Kysely<PlantDatabase>`. */
export interface PlantDatabase {
  plants: PlantsTable;
  plant_events: PlantEventsTable;
}
