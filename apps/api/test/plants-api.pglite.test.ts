import { openPglitePlantStorage } from '@plant-store/storage-postgres';
import { describePlantsApi } from './plants-api.suite.ts';

describePlantsApi('embedded PostgreSQL (PGlite, in memory)', () => openPglitePlantStorage());
