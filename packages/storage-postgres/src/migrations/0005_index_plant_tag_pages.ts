import { type Kysely, sql } from 'kysely';

// A page of plants by tag (GET /plants?tag=) read from an index, whatever the number of plants of other
// tags, with the split of migration 0003: the covering index holds the plants whose name and tag take
// 2,000 bytes or less, keyed by tag then id, in the "C" collation (byte order: no locale to compare by,
// none whose update could reorder it); a second one holds the others, keyed by the SHA-256 of the tag,
// since a tag may be longer than an index key can be: of its UTF-8 bytes (text::bytea reads a
// backslash as an escape, so chr(92) is doubled first). Plants without a tag are in neither.
// plant-statements.ts's tag pages use these very expressions and predicates.
//
// Plain CREATE INDEX holds writes to plants while it builds. To upgrade a large store without that
// pause, create both beforehand with CREATE INDEX CONCURRENTLY and the same definitions: IF NOT EXISTS
// then leaves them as they are.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists plants_tag_page on plants (tag collate "C", id) include (name)
    where octet_length(name) + coalesce(octet_length(tag), 0) <= 2000 and tag is not null`.execute(db);
  await sql`create index if not exists plants_tag_page_long on plants (sha256(replace(tag, chr(92), chr(92) || chr(92))::bytea), id)
    where octet_length(name) + coalesce(octet_length(tag), 0) > 2000 and tag is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists plants_tag_page_long`.execute(db);
  await sql`drop index if exists plants_tag_page`.execute(db);
}
