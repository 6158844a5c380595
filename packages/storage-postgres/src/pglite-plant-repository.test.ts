import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePlantRepositoryContract } from '@plant-store/storage-contract';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';

const tempDir = await mkdtemp(join(tmpdir(), 'plant-store-pglite-'));
afterAll(() => rm(tempDir, { recursive: true, force: true }));

// Nested and missing, so the contract also proves that opening creates the data folder.
const dataDir = join(tempDir, 'not', 'yet', 'there');
describePlantRepositoryContract('PGlite on disk', {
  open: (options) => openPglitePlantStorage({ dataDir, ...options }),
  durable: true,
});

describe('openPglitePlantStorage', () => {
  it('when the data folder is already open in this process, then a second open is refused', async () => {
    const first = await openPglitePlantStorage({ dataDir });
    try {
      await expect(openPglitePlantStorage({ dataDir: join(dataDir, '.') })).rejects.toThrow(
        /already open in this process/,
      );
    } finally {
      await first.close();
    }
    const again = await openPglitePlantStorage({ dataDir });
    await again.close();
  });
});
