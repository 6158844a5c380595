import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { describePlantsApi } from './plants-api.suite.ts';

describePlantsApi('the in-memory storage', async () => openMemoryPlantStorage());
