/**
 * Items kept in ascending order of their int64 ids, for listing a page in O(log n + page): a list
 * of sorted chunks (each at most `maxChunk` items), so an add or a delete moves at most one chunk's
 * worth of entries (plus, rarely, the list of chunks on a split or when a chunk empties), where one
 * sorted array would move half the store. With 10,000,000 items and chunks of 512 to 1024 that is
 * about 15,000 chunks. The items themselves are kept, not just their ids, so that a page is read
 * from consecutive entries instead of a lookup per item.
 */
export interface SortedById<T extends { readonly id: bigint }> {
  /** Adds an item whose id is not in the set. */
  add(item: T): void;
  /** Removes the item of this id, if there is one. */
  delete(id: bigint): void;
  /** Puts `item` in the place of the item of its id, if there is one. */
  replace(item: T): void;
  /** Whether it holds no item. */
  isEmpty(): boolean;
  /** At most `limit` items with ids greater than `after` (from the smallest when undefined), ascending. */
  after(after: bigint | undefined, limit: number): T[];
}

/** The first index in `sorted` whose id is greater than `id` (`orEqual`: greater or equal). */
function firstIndexAbove(sorted: readonly { readonly id: bigint }[], id: bigint, orEqual: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const value = (sorted[middle] as { readonly id: bigint }).id;
    if (value > id || (orEqual && value === id)) high = middle;
    else low = middle + 1;
  }
  return low;
}

export function createSortedById<T extends { readonly id: bigint }>(maxChunk = 1024): SortedById<T> {
  // Every chunk is non-empty and sorted, and every id of a chunk is smaller than every id of the next.
  // A full chunk splits in two halves; chunks that shrink are not merged (an emptied one is
  // dropped), so there are never more chunks than items, nor than adds / (maxChunk / 2) + 1.
  const chunks: T[][] = [];

  /** The index of the first chunk whose last id is greater than `id` (`orEqual`: or equal), or chunks.length. */
  const chunkFor = (id: bigint, orEqual: boolean): number => {
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = chunks[middle] as T[];
      const last = (chunk[chunk.length - 1] as T).id;
      if (last > id || (orEqual && last === id)) high = middle;
      else low = middle + 1;
    }
    return low;
  };

  return {
    add(item) {
      if (chunks.length === 0) {
        chunks.push([item]);
        return;
      }
      const lastChunk = chunks[chunks.length - 1] as T[];
      let index: number;
      let chunk: T[];
      if (item.id > (lastChunk[lastChunk.length - 1] as T).id) {
        // Above every id so far (ids that grow with time, the usual case): appended, no search.
        index = chunks.length - 1;
        chunk = lastChunk;
        chunk.push(item);
      } else {
        // Otherwise in the first chunk whose last id is above it, at its place.
        index = Math.min(chunkFor(item.id, true), chunks.length - 1);
        chunk = chunks[index] as T[];
        chunk.splice(firstIndexAbove(chunk, item.id, true), 0, item);
      }
      if (chunk.length > maxChunk) chunks.splice(index + 1, 0, chunk.splice(chunk.length >>> 1));
    },

    delete(id) {
      const index = chunkFor(id, true);
      const chunk = chunks[index];
      if (chunk === undefined) return;
      const position = firstIndexAbove(chunk, id, true);
      if (chunk[position]?.id !== id) return;
      chunk.splice(position, 1);
      if (chunk.length === 0) chunks.splice(index, 1);
    },

    replace(item) {
      const chunk = chunks[chunkFor(item.id, true)];
      if (chunk === undefined) return;
      const position = firstIndexAbove(chunk, item.id, true);
      if (chunk[position]?.id === item.id) chunk[position] = item;
    },
    isEmpty: () => chunks.length === 0,
    after(after, limit) {
      const found: T[] = [];
      let index = after === undefined ? 0 : chunkFor(after, false);
      let position = after === undefined ? 0 : firstIndexAbove(chunks[index] ?? [], after, false);
      while (found.length < limit && index < chunks.length) {
        const chunk = chunks[index] as T[];
        const end = Math.min(chunk.length, position + (limit - found.length));
        for (let i = position; i < end; i += 1) found.push(chunk[i] as T);
        index += 1;
        position = 0;
      }
      return found;
    },
  };
}
