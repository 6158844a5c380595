import { type Kysely, sql } from 'kysely';

// Migrations see the schema as it was when they were written, not the current PlantDatabase.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plants')
    .addColumn('id', 'bigint', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('tag', 'text')
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('plants').execute();
}
