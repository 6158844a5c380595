import type { NewPlant } from './plant.ts';
import { type ListPlantsQuery, parseListPlantsQuery } from './plant-parameters.schema.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface ListPlantsDeps {
  readonly plants: Pick<PlantRepository, 'listAfter'>;
}

/** One page of plants, and the query of the next page when more plants remain after it. */
export interface PlantPage {
  /** The plants with their ids, ascending by id. */
  readonly plants: readonly NewPlant[];
  /** Absent on the last page. Its `after` is the last id of this page, its `limit` the one this page was read with. */
  readonly next?: { readonly limit: number; readonly after: bigint };
}

/**
 * A page of at most `limit` plants (default 100, at most 1000) with ids greater than `after`
 * (from the smallest id when absent), ascending. Walking pages by `next` sees every plant that is
 * stored for the whole walk exactly once, whatever is created or deleted meanwhile.
 * Throws InvalidParameterError naming a bad `limit` or `after`, and whatever the repository throws.
 */
export async function listPlants(deps: ListPlantsDeps, query: ListPlantsQuery = {}): Promise<PlantPage> {
  const { limit, after } = parseListPlantsQuery(query);
  // One plant more than the page says whether another page follows, without a count or a second query.
  const found = await deps.plants.listAfter(after, limit + 1);
  if (found.length <= limit) return { plants: found };
  const plants = found.slice(0, limit);
  return { plants, next: { limit, after: (plants[limit - 1] as NewPlant).id } };
}
