/** The smallest and largest int64: the range of a plant id. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** A plant as a client asks to create it. */
export interface NewPlant {
  /** An int64, held as a bigint because a JavaScript number is exact only up to 2^53. */
  readonly id: bigint;
  readonly name: string;
  /** Absent and empty are different: an absent tag stays absent. */
  readonly tag?: string;
}

/** A plant as the service answers it: everything but its id. */
export interface Plant {
  readonly name: string;
  readonly tag?: string;
}

/**
 * A NewPlant of just these fields: an absent tag leaves no `tag` key (not even `tag: undefined`), so
 * that a plant copies, compares and serialises alike wherever it was built.
 */
export function newPlant(id: bigint, name: string, tag?: string): NewPlant {
  return tag === undefined ? { id, name } : { id, name, tag };
}

/** A plant as the service answers it: without its id, an absent tag left out. */
export function toPlant(plant: NewPlant): Plant {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

/** Whether two plants of one id carry the same content, so that one is a retry of the other. */
export function hasSameContent(a: NewPlant, b: NewPlant): boolean {
  return a.id === b.id && a.name === b.name && a.tag === b.tag;
}
