import { openPglitePlantStorage } from '@plant-store/storage-postgres';
import { describePlantChanges } from './plant-changes.suite.ts';
import { describePlantsApi } from './plants-api.suite.ts';

describePlantsApi('embedded PostgreSQL (PGlite, in memory)', () => openPglitePlantStorage());
describePlantChanges('embedded PostgreSQL (PGlite, in memory)', () => openPglitePlantStorage());
