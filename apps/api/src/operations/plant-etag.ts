// The strong ETag of a plant (RFC 9110 section 8.8.3): a SHA-256 of its content alone, so that the same
// content has the same tag on every replica, across restarts and whatever the storage, and a different
// content a different one.
import { hash } from 'node:crypto';
import type { Plant } from '@plant-store/domain';

/**
 * The plant's entity-tag, quotes included: base64url of the SHA-256 of the JSON array `[name]`, or
 * `[name, tag]` with a tag. JSON escapes every string, so no two contents share an encoding, and an
 * absent tag (`["a"]`) is not an empty one (`["a",""]`).
 */
export function plantETag(plant: Plant): string {
  const content = plant.tag === undefined ? [plant.name] : [plant.name, plant.tag];
  return `"${hash('sha256', JSON.stringify(content), 'base64url')}"`;
}
