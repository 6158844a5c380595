export { plantTextArbitrary } from './plant-properties.ts';
export { describePlantRepositoryContract, type PlantStorageHarness } from './plant-repository-contract.ts';
