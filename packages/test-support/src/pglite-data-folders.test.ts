import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { pgliteDataFolders } from './pglite-data-folders.ts';
import { EMBEDDED_POSTGRES_TEST_TIMEOUT_MS } from './postgres.ts';

const tables = async (pglite: PGlite) =>
  (
    await pglite.query<{ name: string }>(
      "select tablename as name from pg_tables where schemaname = 'public'",
    )
  ).rows;

describe('pgliteDataFolders', { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
  it('when a test writes in its folder, then no other folder, handed out before or after, sees it; cleanup removes them all', async () => {
    const folders = pgliteDataFolders();
    const [first, second] = [await folders.next(), await folders.next()];
    expect(first).not.toBe(second);

    const written = await PGlite.create({ dataDir: first });
    await written.exec('create table plants (id bigint primary key); insert into plants values (1)');
    await written.close();

    for (const folder of [second, await folders.next()]) {
      const other = await PGlite.create({ dataDir: folder });
      expect(await tables(other)).toStrictEqual([]);
      await other.close();
    }
    const again = await PGlite.create({ dataDir: first });
    expect(await tables(again)).toStrictEqual([{ name: 'plants' }]);
    await again.close();

    await folders.cleanup();
    expect(existsSync(dirname(first))).toBe(false);
  });
});
