// The domain with the in-memory adapter, as a service that reuses them would.
import {
  createPlant,
  INT64_MAX,
  InvalidPlantError,
  type NewPlant,
  PlantConflictError,
} from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';

// @ts-expect-error an id is a bigint (or a safe integer), never a string: the types are real, not `any`
const wrong: NewPlant = { id: '7', name: 'Fern' };
void wrong;

const storage = openMemoryPlantStorage();
const plant: NewPlant = { id: INT64_MAX, name: 'Monstera', tag: 'aroid' };
const first = await createPlant({ plants: storage.plants }, plant);
const retry = await createPlant({ plants: storage.plants }, { ...plant });
const conflict = await createPlant({ plants: storage.plants }, { id: INT64_MAX, name: 'Fern' }).catch(
  (error: unknown) => error,
);
const invalid = await createPlant({ plants: storage.plants }, { id: 1.5, name: 'Fern' }).catch(
  (error: unknown) => error,
);
const stored = await storage.plants.findById(INT64_MAX);
await storage.close();

console.log(
  JSON.stringify({
    created: first,
    retryCreated: retry.created,
    conflict: conflict instanceof PlantConflictError ? conflict.message : String(conflict),
    invalid: invalid instanceof InvalidPlantError ? invalid.issues : String(invalid),
    storedId: stored?.id.toString(),
  }),
);
