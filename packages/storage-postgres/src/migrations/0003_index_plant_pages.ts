import { type Kysely, sql } from 'kysely';

// A page of plants in id order (GET /plants) read from an index alone. Plants are stored where their
// insert put them, not in id order, so a page of 100 through the primary key read ~100 heap pages:
// on 10,000,000 plants, more than shared buffers hold, 104 pages read for one page against 4 with
// this index. An index entry may not exceed ~2.7 KB, and a name has no limit of its own, so the
// covering index holds the plants whose name and tag take 2,000 bytes or less (nearly all), and a
// small one finds the others; postgres-plant-repository.ts's list statements read both, with these
// very predicates (the planner uses a partial index only for a query that implies its predicate).
//
// Plain CREATE INDEX holds writes to plants while it builds (~6 s for 10,000,000 plants here). To
// upgrade a large store without that pause, create both beforehand with CREATE INDEX CONCURRENTLY
// and the same definitions: IF NOT EXISTS then leaves them as they are.
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
