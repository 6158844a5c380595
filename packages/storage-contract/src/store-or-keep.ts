import type { NewPlant, PlantRepository } from '@plant-store/domain';

/** What the store holds for this plant after insertIfAbsent: ours, or what was there before. */
export async function storeOrKeep(plants: PlantRepository, plant: NewPlant): Promise<NewPlant> {
  const outcome = await plants.insertIfAbsent(plant);
  return outcome.inserted ? plant : outcome.existing;
}
