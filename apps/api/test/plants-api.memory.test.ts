import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { describePlantChanges } from './plant-changes.suite.ts';
import { describePlantsApi } from './plants-api.suite.ts';

describePlantsApi('the in-memory storage', async () => openMemoryPlantStorage());
describePlantChanges('the in-memory storage', async () => openMemoryPlantStorage());
