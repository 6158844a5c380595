import { type Kysely, sql } from 'kysely';

// The trace context (W3C traceparent, tracestate) of the create that recorded the event, so that its
// delivery continues that trace. Nullable, without a default: adding it rewrites no row, and the rows
// and inserts of a process not yet upgraded simply carry none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table plant_events add column if not exists trace_context jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table plant_events drop column if exists trace_context`.execute(db);
}
