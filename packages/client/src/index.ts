export { parseExactJson, stringifyExactJson } from './exact-json.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export {
  type CreatePlantErrorStatus,
  type CreatePlantResult,
  createPlantStoreClient,
  type DeletePlantErrorStatus,
  type DeletePlantResult,
  type ErrorBody,
  type Failure,
  type GetPlantErrorStatus,
  type GetPlantResult,
  ListPlantsError,
  type ListPlantsErrorStatus,
  type NewPlant,
  type Plant,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  UnexpectedResponseError,
} from './plant-store-client.ts';
