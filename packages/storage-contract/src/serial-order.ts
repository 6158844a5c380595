import type {
  ExpectedContent,
  InsertOutcome,
  NewPlant,
  PlantChange,
  UpdateOutcome,
} from '@plant-store/domain';

/** A plant's content: what insertIfAbsent stores under an id. */
export type Content = Omit<NewPlant, 'id'>;

/** An operation on one id, with the answer the store gave it. */
export type Answered =
  | { readonly kind: 'insert'; readonly content: Content; readonly answer: InsertOutcome }
  | { readonly kind: 'delete'; readonly expected?: ExpectedContent | undefined; readonly answer: boolean }
  | {
      readonly kind: 'update';
      readonly change: PlantChange;
      readonly expected?: ExpectedContent | undefined;
      readonly answer: UpdateOutcome;
    };

function sameContent(a: Content, b: Content): boolean {
  return a.name === b.name && a.tag === b.tag;
}

function holds(state: Content, expected: ExpectedContent | undefined): boolean {
  return expected === undefined || expected === 'any' || sameContent(state, expected);
}

/** The content `change` makes of `state`. */
export function changed(state: Content, change: PlantChange): Content {
  const name = change.name ?? state.name;
  const tag = change.tag === undefined ? state.tag : change.tag;
  return tag === null || tag === undefined ? { name } : { name, tag };
}

/** The state after `operation` runs alone on `state`, or null when it would have answered otherwise. */
function apply(state: Content | undefined, operation: Answered): Content | undefined | null {
  if (operation.kind === 'delete') {
    const deletes = state !== undefined && holds(state, operation.expected);
    return operation.answer !== deletes ? null : deletes ? undefined : state;
  }
  if (operation.kind === 'update') {
    const { answer } = operation;
    if (state === undefined) return answer.outcome === 'absent' ? undefined : null;
    if (!holds(state, operation.expected)) {
      return answer.outcome === 'precondition-failed' && sameContent(answer.current, state) ? state : null;
    }
    const next = changed(state, operation.change);
    return answer.outcome === 'updated' && sameContent(answer.plant, next) ? next : null;
  }
  const { answer } = operation;
  if (state === undefined) return answer.inserted ? operation.content : null;
  return !answer.inserted && sameContent(answer.existing, state) ? state : null;
}

/**
 * Whether the operations, run one at a time in some order from `initial`, would have given exactly
 * the answers they got and left exactly `final`: that is, whether concurrent operations on one id
 * behaved as if the store had run them one after the other.
 */
export function fitsSomeSerialOrder(
  initial: Content | undefined,
  operations: readonly Answered[],
  final: Content | undefined,
): boolean {
  const used = operations.map(() => false);
  const search = (state: Content | undefined, left: number): boolean => {
    if (left === 0)
      return state === undefined ? final === undefined : final !== undefined && sameContent(state, final);
    return operations.some((operation, index) => {
      if (used[index]) return false;
      const next = apply(state, operation);
      if (next === null) return false;
      used[index] = true;
      const found = search(next, left - 1);
      used[index] = false;
      return found;
    });
  };
  return search(initial, operations.length);
}
