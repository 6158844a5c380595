import { PlantPreconditionFailedError } from './errors.ts';
import type { Plant } from './plant.ts';

/**
 * A precondition on the plant a change or a delete finds (an HTTP If-Match, for one): `'any'` when a
 * plant must merely exist, or a test of its content, which must hold for the content it changes.
 */
export type PlantPrecondition = 'any' | ((current: Plant) => boolean);

// A round is lost only when another write changes the plant between our read and our write, to content
// that still meets the precondition; so many in a row do not happen by chance. Past them, the request
// is answered as if it came after a change it does not match.
export const MAX_CONDITIONAL_ROUNDS = 100;

/**
 * Runs `attempt` with the content the precondition matched, in one atomic compare-and-change step, for
 * as long as the plant found meets the precondition. `attempt` answers what it did, or the content it
 * found instead (undefined when none), which is tested again.
 */
export async function whileMatching<Result>(
  id: bigint,
  found: Plant | undefined,
  matches: (current: Plant) => boolean,
  attempt: (expected: Plant) => Promise<{ done: Result } | { current: Plant | undefined }>,
): Promise<Result> {
  let current = found;
  for (let round = 1; current !== undefined && matches(current); round += 1) {
    const outcome = await attempt(current);
    if ('done' in outcome) return outcome.done;
    if (round === MAX_CONDITIONAL_ROUNDS) break;
    current = outcome.current;
  }
  throw new PlantPreconditionFailedError(id);
}
