import type { NewPlant } from './plant.ts';
import { type PageSelection, parsePageSelection } from './plant-parameters.schema.ts';
import type { PlantRepository } from './plant-repository.port.ts';

export interface ListPlantsDeps {
  readonly plants: Pick<PlantRepository, 'listAfter'>;
}

export interface ListPlantsOptions {
  /**
   * The most content (UTF-8 bytes of names and tags) a page may hold: a page stops before the plant
   * that would pass it, but always holds one plant. Unbounded when absent.
   */
  readonly maxBytes?: number;
}

/** One page of plants, and which page follows when more plants remain after it. */
export interface PlantPage {
  /** The plants with their ids, ascending by id. */
  readonly plants: readonly NewPlant[];
  /**
   * Absent on the last page. Its `after` is the last id of this page, its `limit` the one this page was
   * read with, and its `tag` this page's, when it was read by tag.
   */
  readonly next?: { readonly limit: number; readonly after: bigint; readonly tag?: string };
}

/**
 * A page of at most `limit` plants (default 100, at most 1000) with ids greater than `after`
 * (from the smallest id when absent), ascending, within `maxBytes` of content; with `tag`, only the
 * plants whose tag is exactly `tag` (`''` is the empty tag; a plant without a tag never matches).
 * Walking pages by `next` sees every plant that is stored (with the tag) for the whole walk exactly
 * once, whatever is created, changed or deleted meanwhile. Throws InvalidParameterError naming a bad
 * `limit`, `after` or `tag`, and whatever the repository throws.
 */
export async function listPlants(
  deps: ListPlantsDeps,
  page: PageSelection = {},
  options: ListPlantsOptions = {},
): Promise<PlantPage> {
  const { limit, after, tag } = parsePageSelection(page);
  const { plants, more } = await deps.plants.listAfter(after, limit, options.maxBytes, tag);
  const last = plants.at(-1);
  if (!more || last === undefined) return { plants };
  return { plants, next: tag === undefined ? { limit, after: last.id } : { limit, after: last.id, tag } };
}
