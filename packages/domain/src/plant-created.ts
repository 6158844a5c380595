import { type NewPlant, newPlant } from './plant.ts';

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
  return { type: 'plant.created', plant: newPlant(plant.id, plant.name, plant.tag) };
}
