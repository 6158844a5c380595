import type { ReceivedSpan } from './otlp-spans.ts';

/**
 * The parent/child tree of `spans` (of one trace when `traceId` is given) as indented text, a line a
 * span (`KIND name`), children by start time, for assertions a reader can check by eye. A span whose
 * parent is not among them is a root marked `(parent not received)`.
 */
export function spanTree(spans: readonly ReceivedSpan[], traceId?: string): string {
  const inTrace = byStart(traceId === undefined ? spans : spans.filter((span) => span.traceId === traceId));
  const present = new Set(inTrace.map(({ traceId, spanId }) => `${traceId}/${spanId}`));
  const lines: string[] = [];
  const rendered = new Set<ReceivedSpan>();
  const render = (span: ReceivedSpan, depth: number, mark: string) => {
    if (rendered.has(span)) return;
    rendered.add(span);
    lines.push(`${'  '.repeat(depth)}${span.kind} ${span.name}${mark}`);
    for (const child of childrenOf(inTrace, span)) render(child, depth + 1, '');
  };
  for (const span of inTrace) {
    if (span.parentSpanId === undefined) render(span, 0, '');
    else if (!present.has(`${span.traceId}/${span.parentSpanId}`)) render(span, 0, ' (parent not received)');
  }
  // Only spans in a parent cycle are left; shown rather than silently dropped.
  for (const span of inTrace) render(span, 0, ' (in a parent cycle)');
  return lines.join('\n');
}

/** The spans whose parent is `parent`, by start time. */
export function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return byStart(
    spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId),
  );
}

/** The one span named `name`; throws, naming the spans there are, when there is none or several. */
export function byName(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const named = spans.filter((span) => span.name === name);
  const [only] = named;
  if (only === undefined || named.length > 1) {
    throw new Error(
      `${named.length} spans named ${JSON.stringify(name)} among: ${spans.map((span) => span.name).join(', ')}`,
    );
  }
  return only;
}

// Stable: spans that started in the same nanosecond keep the order they were received in.
function byStart(spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  return spans.toSorted((a, b) =>
    a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0,
  );
}
