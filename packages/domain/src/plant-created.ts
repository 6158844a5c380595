import type { NewPlant } from './plant.ts';

/**
 * The event of a plant stored for the first time (never of a retry or a refused create): plain
 * data, to be recorded with the plant in one step and delivered to whoever listens for it.
 */
export interface PlantCreated {
  readonly type: 'plant.created';
  readonly plant: NewPlant;
}

export function plantCreated(plant: NewPlant): PlantCreated {
  // The plant as a NewPlant and nothing else: an event is serialised as it is, extra keys and all.
  const { id, name, tag } = plant;
  return { type: 'plant.created', plant: tag === undefined ? { id, name } : { id, name, tag } };
}
