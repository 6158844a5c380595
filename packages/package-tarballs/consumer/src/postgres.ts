// The domain with the PostgreSQL adapter on embedded PostgreSQL (PGlite) in memory: no server needed.
import { createPlant, INT64_MIN } from '@plant-store/domain';
import { openPglitePlantStorage } from '@plant-store/storage-postgres';

const storage = await openPglitePlantStorage();
const first = await createPlant({ plants: storage.plants }, { id: INT64_MIN, name: 'Monstera', tag: '' });
const stored = await storage.plants.findById(INT64_MIN);
await storage.checkReady();
await storage.close();

console.log(JSON.stringify({ created: first, storedId: stored?.id.toString(), storedTag: stored?.tag }));
