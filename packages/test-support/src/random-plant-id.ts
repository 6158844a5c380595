import { getRandomValues } from 'node:crypto';

/**
 * A uniformly random int64. Tests take fresh ids instead of cleaning the store, so they never
 * depend on each other and can run against a store that other runs have used.
 */
export function randomPlantId(): bigint {
  const bytes = getRandomValues(new Uint8Array(8));
  return new DataView(bytes.buffer).getBigInt64(0);
}
