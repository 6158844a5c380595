import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServerSpan } from './server-span.ts';

const request = {
  method: 'POST',
  url: '/plants',
  headers: {},
  httpVersion: '1.1',
  socket: { remoteAddress: '127.0.0.1' },
} as unknown as IncomingMessage;

describe('startServerSpan', () => {
  // A getter in the returned literal costs an AccessorPair in the old space each request, holding the
  // request's closure, span and context past every scavenge: peak RSS grew with it under load.
  it('returns plain data and methods, no accessor', () => {
    const traced = startServerSpan(request, 'r1');
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(traced))) {
      expect({ name, accessor: 'get' in descriptor || 'set' in descriptor }).toEqual({
        name,
        accessor: false,
      });
    }
    traced.end(201, '/plants', undefined);
  });

  it('gives no trace ids for the log line while tracing is off', () => {
    const traced = startServerSpan(request, 'r2');
    expect(traced.logFields()).toEqual({});
    traced.end(201, '/plants', undefined);
  });
});
