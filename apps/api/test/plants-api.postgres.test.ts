import { openPostgresPlantStorage } from '@plant-store/storage-postgres';
import { provideTestPostgres } from '@plant-store/test-support';
import { afterAll, describe } from 'vitest';
import { describePlantChanges } from './plant-changes.suite.ts';
import { describePlantsApi } from './plants-api.suite.ts';

// A fresh schema on TEST_DATABASE_URL, else a container, else none: the suite is skipped after a loud warning.
const pg = await provideTestPostgres();
afterAll(async () => {
  await pg?.cleanup();
});

describe.skipIf(!pg)(`on PostgreSQL (${pg?.source ?? 'none available'})`, () => {
  const openStorage = () => openPostgresPlantStorage({ connectionString: pg?.connectionString ?? '' });
  describePlantsApi('a PostgreSQL server', openStorage);
  describePlantChanges('a PostgreSQL server', openStorage);
});
