// Interleaved rounds: every figure the bench judges comes from servers that are up at once and
// loaded in turn, A, B, A, B, ..., A, so that others' work on the machine, which comes and goes,
// hits both sides of a ratio alike. Each subject segment is compared to its baseline's segments
// just before and just after it. The reads on PostgreSQL (reads.ts) and the main comparisons
// (targets.ts) run their segments through here.

/** One side of a comparison: a server (or pgbench) that one segment of load can be put on. */
export interface Side<S> {
  readonly key: string;
  readonly measure: (seconds: number) => Promise<S>;
}

/** A segment's figures, with the round it belongs to (1..rounds; rounds + 1 is the closing one). */
export interface RoundSegment<S> {
  readonly side: string;
  readonly round: number;
  /** The closing segment of a baseline: an "after" for the last round, never a round of its own. */
  readonly closing?: boolean;
  readonly figures: S;
}

/**
 * `rounds` rounds in which every side is loaded once, in the order given (a baseline before its
 * subjects), then a closing segment of every side that is the baseline of another: each subject
 * segment then has a segment of its baseline just before it (same round) and just after it (next
 * round). With one pair this is bare, service, bare, service, ..., bare. A side that throws is
 * dropped from the segments after it, with its error kept; the others go on.
 */
export async function interleave<S>(options: {
  readonly sides: readonly Side<S>[];
  /** [subject, baseline] pairs among the sides' keys. */
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  readonly rounds: number;
  readonly seconds: number;
  /** Told each round's segments when the round is over. */
  readonly onRound?: (round: number, segments: readonly RoundSegment<S>[]) => void;
}): Promise<{ segments: RoundSegment<S>[]; errors: Map<string, string> }> {
  const { sides, rounds, seconds } = options;
  const keys = new Set(sides.map((side) => side.key));
  const baselines = new Set(
    options.pairs
      .filter(([subject, baseline]) => keys.has(subject) && keys.has(baseline))
      .map(([, baseline]) => baseline),
  );
  const segments: RoundSegment<S>[] = [];
  const errors = new Map<string, string>();
  for (let round = 1; round <= rounds + 1; round += 1) {
    const closing = round === rounds + 1;
    const these: RoundSegment<S>[] = [];
    for (const side of sides) {
      if (errors.has(side.key) || (closing && !baselines.has(side.key))) continue;
      try {
        const figures = await side.measure(seconds);
        const segment = closing
          ? { side: side.key, round, closing, figures }
          : { side: side.key, round, figures };
        these.push(segment);
        segments.push(segment);
      } catch (error) {
        errors.set(side.key, error instanceof Error ? error.message : String(error));
      }
    }
    options.onRound?.(round, these);
  }
  return { segments, errors };
}

/**
 * Round by round, the subject's figure over the mean of its baseline's just before (same round)
 * and just after (next round); over the one before alone when there is none after. A round
 * without both sides gives no ratio, and a closing segment is never a round of its own.
 */
export function bracketRatios<S>(
  segments: readonly RoundSegment<S>[],
  subject: string,
  baseline: string,
  value: (figures: S) => number | undefined,
): number[] {
  const at = (side: string, round: number) => {
    const found = segments.find((segment) => segment.side === side && segment.round === round);
    return found === undefined ? undefined : value(found.figures);
  };
  const ratios: number[] = [];
  const subjectRounds = segments
    .filter((segment) => segment.side === subject && segment.closing !== true)
    .map((segment) => segment.round);
  for (const round of subjectRounds) {
    const measured = at(subject, round);
    const before = at(baseline, round);
    const after = at(baseline, round + 1);
    if (measured === undefined || before === undefined) continue;
    const base = after === undefined ? before : (before + after) / 2;
    ratios.push(measured / base);
  }
  return ratios;
}
