import { type Kysely, sql } from 'kysely';

// The outbox: the event of each plant created, written by the statement that stores the plant and
// removed once handed on to the delivery queue. `seq` orders them; `event_id` names them to receivers.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plant_events')
    .addColumn('seq', 'bigserial', (column) => column.primaryKey())
    .addColumn('event_id', 'uuid', (column) => column.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('plant_id', 'bigint', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('tag', 'text')
    .addColumn('recorded_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('plant_events').execute();
}
