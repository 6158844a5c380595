import type { InsertOutcome, NewPlant, PlantRepository } from '@plant-store/domain';
import type { Kysely } from 'kysely';
import type { PlantDatabase } from './plant-database.ts';
import { mapStorageErrors } from './storage-errors.ts';

interface PlantRow {
  id: bigint | string | number;
  name: string;
  tag: string | null;
}

// BigInt() keeps the id exact even on a Kysely built without our int8 parser, where pg hands
// int8 over as a string and PGlite as a number when it is safe.
function toNewPlant(row: PlantRow): NewPlant {
  const id = BigInt(row.id);
  return row.tag === null ? { id, name: row.name } : { id, name: row.name, tag: row.tag };
}

/** A PlantRepository over the `plants` table. The database, not this code, keeps ids unique. */
export function createPostgresPlantRepository(db: Kysely<PlantDatabase>): PlantRepository {
  const selectPlant = async (id: bigint): Promise<NewPlant | undefined> => {
    const row = await db
      .selectFrom('plants')
      .select(['id', 'name', 'tag'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toNewPlant(row);
  };

  return {
    insertIfAbsent: (plant) =>
      mapStorageErrors(async (): Promise<InsertOutcome> => {
        // One statement decides: of racing inserts the primary key lets exactly one through,
        // and ON CONFLICT makes the others wait for it to commit, then do nothing.
        const inserted = await db
          .insertInto('plants')
          .values({ id: plant.id, name: plant.name, tag: plant.tag ?? null })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (inserted) return { inserted: true };
        // A separate statement takes a fresh snapshot, so it sees the committed winner.
        const existing = await selectPlant(plant.id);
        if (!existing) throw new Error(`plant ${plant.id} conflicted on insert but cannot be read back`);
        return { inserted: false, existing };
      }),
    findById: (id) => mapStorageErrors(() => selectPlant(id)),
  };
}
