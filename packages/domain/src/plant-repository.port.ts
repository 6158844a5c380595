import type { NewPlant, Plant } from './plant.ts';
import type { PlantCreated } from './plant-created.ts';

/** What an insert found: the plant is now stored, or the plant already stored under its id. */
export type InsertOutcome =
  | { readonly inserted: true }
  | { readonly inserted: false; readonly existing: NewPlant };

/** A page of plants as listAfter found it. */
export interface PlantsFound {
  /** Ascending by id, exactly as stored. */
  readonly plants: NewPlant[];
  /** Whether plants with greater ids than the last of these are stored (when it ran). */
  readonly more: boolean;
}

/**
 * A change of a stored plant's content, applied in one atomic step: `name` replaces the name; `tag` a
 * string sets the tag, null removes it; a member left out stays as stored. `{}` changes nothing.
 */
export interface PlantChange {
  readonly name?: string;
  readonly tag?: string | null;
}

/**
 * What a conditional write expects to find under the id: exactly this content (name and tag, an
 * absent tag absent; an `id` member is ignored), or `'any'` content: the plant must merely exist.
 */
export type ExpectedContent = Plant | 'any';

/** What an update found: it changed the plant (and this is the plant now stored), no plant, or other content. */
export type UpdateOutcome =
  | { readonly outcome: 'updated'; readonly plant: NewPlant }
  | { readonly outcome: 'absent' }
  /**
   * Only with an expected content: the plant stored holds another. `current` is the plant as read
   * once the comparison failed; another write may have changed it again since.
   */
  | { readonly outcome: 'precondition-failed'; readonly current: NewPlant };

/** Where plants are kept. Every adapter proves itself against @plant-store/storage-contract. */
export interface PlantRepository {
  /**
   * Stores the plant unless a plant with its id is stored already, in one atomic step: of
   * concurrent calls for one id exactly one inserts, and the others get what it stored.
   * Resolves only once the plant is durable, as far as the adapter promises durability.
   * Rejects with StorageUnavailableError when storage cannot be reached.
   *
   * `created` is the event of this creation: on a storage that keeps events (PlantStorage.events),
   * an insert records it in the same atomic step as the plant (a transactional outbox), and an
   * insert that stores nothing records nothing. Elsewhere it is ignored.
   */
  insertIfAbsent(plant: NewPlant, created?: PlantCreated): Promise<InsertOutcome>;

  /** The plant stored under this id, exactly as it was stored, or undefined. */
  findById(id: bigint): Promise<NewPlant | undefined>;

  /**
   * The plants with ids greater than `after` (from the smallest id when undefined), ascending by id,
   * exactly as stored: at most `limit` of them, and only as many as fit in `maxBytes` of content
   * (the UTF-8 bytes of their names and tags, summed), but always the first one, however large;
   * `more` says whether others follow. A plant past the budget is not read whole. Each call sees the
   * plants stored when it runs; a plant stored for the whole of a walk of pages (each call `after`
   * the last id of the previous, while `more`) is returned exactly once by it. `limit` is a positive
   * integer; `maxBytes` a non-negative one, unbounded when absent.
   *
   * With `tag`, only the plants whose tag is exactly `tag` count (code unit for code unit: `''` is the
   * empty tag, and a plant without a tag never matches), with the same order, limit and budget; a walk
   * by tag returns exactly once each plant that holds the tag for the whole of it. A page by tag costs
   * about what a page costs, however many plants carry other tags.
   */
  listAfter(after: bigint | undefined, limit: number, maxBytes?: number, tag?: string): Promise<PlantsFound>;

  /**
   * Changes the content of the plant stored under `id` (never creates one), in one atomic step: the
   * comparison with `expected`, when given, and the change are one step, so of concurrent writers
   * expecting the same content at most one changes it (unless one leaves it as it was), and a change
   * of one member never undoes a concurrent change of the other. Without `expected` or with `'any'`,
   * it changes whatever plant is stored. Resolves with the plant now stored, `absent` when no plant
   * is stored under `id`, or `precondition-failed` when one with other content than `expected` is.
   */
  update(id: bigint, change: PlantChange, expected?: ExpectedContent): Promise<UpdateOutcome>;

  /**
   * Deletes the plant stored under this id, in one atomic step: true when a plant was deleted,
   * false when none was stored, or (with `expected` content) when the plant stored holds other
   * content, which then stays. Of concurrent calls for one id, at most one answers true. The id is
   * then free: insertIfAbsent stores any plant under it. `'any'` is the same as no `expected`.
   */
  deleteById(id: bigint, expected?: ExpectedContent): Promise<boolean>;
}
