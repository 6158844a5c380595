export {
  type ChangePlantDeps,
  type ChangePlantOptions,
  patchPlant,
  replacePlant,
} from './change-plant.ts';
export { type CreatePlantDeps, type CreatePlantResult, createPlant } from './create-plant.ts';
export {
  type ConditionalDeletePlantDeps,
  type DeletePlantDeps,
  type DeletePlantOptions,
  deletePlant,
} from './delete-plant.ts';
export {
  InvalidParameterError,
  InvalidPlantError,
  PlantConflictError,
  type PlantIssue,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StorageUnavailableError,
} from './errors.ts';
export { stringifyExactJson } from './exact-json.ts';
export { type GetPlantDeps, getPlant } from './get-plant.ts';
export { type ListPlantsDeps, listPlants, type PlantPage } from './list-plants.ts';
export {
  NewPlantObjectSchema,
  NewPlantSchema,
  PLANT_ID_RANGE_RULE,
  PlantIdSchema,
  PlantTextSchema,
  parseNewPlant,
} from './new-plant.schema.ts';
export {
  hasSameContent,
  INT64_MAX,
  INT64_MIN,
  type NewPlant,
  newPlant,
  type Plant,
  toPlant,
} from './plant.ts';
export {
  parsePlantPatch,
  parsePlantReplacement,
  plantPatchSchema,
  plantReplacementSchema,
} from './plant-change.schema.ts';
export { type PlantCreated, plantCreated } from './plant-created.ts';
export type { PlantEventOutbox, RecordedEvent } from './plant-event-outbox.port.ts';
export {
  DEFAULT_PAGE_LIMIT,
  invalidParameter,
  MAX_PAGE_LIMIT,
  PAGE_LIMIT_RULE,
  PageLimitSchema,
  type PageSelection,
  PageSelectionSchema,
} from './plant-parameters.schema.ts';
export type { PlantPrecondition } from './plant-precondition.ts';
export type {
  ExpectedContent,
  InsertOutcome,
  PlantChange,
  PlantRepository,
  PlantsFound,
  UpdateOutcome,
} from './plant-repository.port.ts';
export type { PlantStorage } from './plant-storage.port.ts';
