import { describe, expect, it } from 'vitest';
import type { ReceivedSpan } from './otlp-spans.ts';
import { byName, childrenOf, spanTree } from './span-tree.ts';

const TRACE = 'a'.repeat(32);
const OTHER_TRACE = 'b'.repeat(32);

function span(
  name: string,
  spanId: string,
  parentSpanId: string | undefined,
  start: bigint,
  overrides: Partial<ReceivedSpan> = {},
): ReceivedSpan {
  return {
    traceId: TRACE,
    spanId: spanId.padStart(16, '0'),
    ...(parentSpanId === undefined ? {} : { parentSpanId: parentSpanId.padStart(16, '0') }),
    name,
    kind: 'INTERNAL',
    attributes: {},
    links: [],
    events: [],
    status: { code: 'UNSET' },
    startTimeUnixNano: start,
    endTimeUnixNano: start + 1n,
    resource: {},
    scope: { name: 'test' },
    ...overrides,
  };
}

describe('spanTree', () => {
  it('when spans arrive children first, then the tree has parents above children, siblings by start time', () => {
    const spans = [
      span('INSERT plants', '3', '2', 30n, { kind: 'CLIENT' }),
      span('send answer', '4', '1', 40n),
      span('group commit', '2', '1', 20n),
      span('POST /plants', '1', undefined, 10n, { kind: 'SERVER' }),
    ];

    expect(spanTree(spans)).toBe(
      [
        'SERVER POST /plants',
        '  INTERNAL group commit',
        '    CLIENT INSERT plants',
        '  INTERNAL send answer',
      ].join('\n'),
    );
    expect(childrenOf(spans, byName(spans, 'POST /plants')).map(({ name }) => name)).toEqual([
      'group commit',
      'send answer',
    ]);
  });

  it('when a parent was not received, then its child is a root marked so; a trace id keeps to that trace', () => {
    const spans = [
      span('deliver', '5', 'f', 50n, { kind: 'CONSUMER' }),
      span('POST /plants', '1', undefined, 10n, { kind: 'SERVER' }),
      span('elsewhere', '1', undefined, 5n, { traceId: OTHER_TRACE }),
    ];

    expect(spanTree(spans)).toBe(
      ['INTERNAL elsewhere', 'SERVER POST /plants', 'CONSUMER deliver (parent not received)'].join('\n'),
    );
    expect(spanTree(spans, TRACE)).toBe(
      ['SERVER POST /plants', 'CONSUMER deliver (parent not received)'].join('\n'),
    );
  });

  it('when spans name each other as parents, then they are shown once each rather than dropped', () => {
    expect(spanTree([span('one', '1', '2', 10n), span('two', '2', '1', 20n)])).toBe(
      ['INTERNAL one (in a parent cycle)', '  INTERNAL two'].join('\n'),
    );
  });
});

describe('byName', () => {
  it('when no span or several have the name, then it throws naming the spans there are', () => {
    const spans = [
      span('a', '1', undefined, 1n),
      span('b', '2', undefined, 2n),
      span('b', '3', undefined, 3n),
    ];
    expect(byName(spans, 'a').spanId).toBe('0000000000000001');
    expect(() => byName(spans, 'c')).toThrow('0 spans named "c" among: a, b, b');
    expect(() => byName(spans, 'b')).toThrow('2 spans named "b" among: a, b, b');
  });
});
