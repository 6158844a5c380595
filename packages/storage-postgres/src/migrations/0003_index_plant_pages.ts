import { type Kysely, sql } from 'kysely';

// A page of plants in id order (GET /plants) read from an index alone: plants are stored where their
// insert put them, not in id order, so a page through the primary key reads about a heap page per plant
// (figures in bench/PROFILE.md, "List pages"). An index entry may not exceed ~2.7 KB, and a name has no
// limit of its own, so the covering index holds the plants whose name and tag take 2,000 bytes or less
// (nearly all), and a small one finds the others; plant-statements.ts's list statements read both, with
// these very predicates (the planner uses a partial index only for a query that implies its predicate).
//
// Plain CREATE INDEX holds writes to plants while it builds. To upgrade a large store without that
// pause, create both beforehand with CREATE INDEX CONCURRENTLY and the same definitions: IF NOT EXISTS
// then leaves them as they are.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists plants_page on plants (id) include (name, tag)
    where octet_length(name) + coalesce(octet_length(tag), 0) <= 2000`.execute(db);
  await sql`create index if not exists plants_page_long on plants (id)
    where octet_length(name) + coalesce(octet_length(tag), 0) > 2000`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists plants_page_long`.execute(db);
  await sql`drop index if exists plants_page`.execute(db);
}
