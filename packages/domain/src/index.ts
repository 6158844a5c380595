export { type CreatePlantDeps, type CreatePlantResult, createPlant } from './create-plant.ts';
export { InvalidPlantError, PlantConflictError, type PlantIssue, StorageUnavailableError } from './errors.ts';
export { NewPlantSchema, PlantIdSchema, parseNewPlant } from './new-plant.schema.ts';
export { hasSameContent, INT64_MAX, INT64_MIN, type NewPlant, type Plant, toPlant } from './plant.ts';
export type { InsertOutcome, PlantRepository } from './plant-repository.port.ts';
export type { ConnectionPoolStats, PlantStorage } from './plant-storage.port.ts';
