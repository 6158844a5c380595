import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countSpans } from './otlp-spans.ts';

// Protobuf written by hand, field by field, as OTLP's schema numbers them.
function varint(value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; ; rest = Math.floor(rest / 128)) {
    if (rest < 128) return Buffer.from([...bytes, rest]);
    bytes.push((rest % 128) | 0x80);
  }
}
const message = (field: number, ...parts: Buffer[]) => {
  const payload = Buffer.concat(parts);
  return Buffer.concat([varint(field * 8 + 2), varint(payload.length), payload]);
};
const number = (field: number, value: number) => Buffer.concat([varint(field * 8), varint(value)]);
const fixed64 = (field: number) => Buffer.concat([varint(field * 8 + 1), Buffer.alloc(8, 0xff)]);

/** A span: trace and span ids, a parent, a name, its kind, a start time (fixed64), an attribute. */
const span = (kind: number) =>
  message(
    2,
    message(1, Buffer.alloc(16, 1)),
    message(2, Buffer.alloc(8, 2)),
    message(4, Buffer.alloc(8, 3)),
    message(5, Buffer.from('POST /plants')),
    number(6, kind),
    fixed64(7),
    message(9, message(1, Buffer.from('http.request.method')), message(2, message(1, Buffer.from('POST')))),
  );
const scope = (...spans: Buffer[]) =>
  message(2, message(1, message(1, Buffer.from('@plant-store/api'))), ...spans);
const resource = (...scopes: Buffer[]) =>
  message(1, message(1, message(1, message(1, Buffer.from('service.name')))), ...scopes);

describe('the OTLP sink counts spans', () => {
  const SERVER = 2;
  const INTERNAL = 1;
  const CLIENT = 3;
  const body = Buffer.concat([
    resource(scope(span(SERVER), span(INTERNAL)), scope(span(CLIENT))),
    resource(scope(span(SERVER))),
  ]);

  it('in a protobuf export, every span of every scope of every resource, the SERVER ones apart', () => {
    expect(countSpans('application/x-protobuf', undefined, body)).toEqual({ spans: 4, serverSpans: 2 });
  });

  it('in a gzipped export as in a plain one', () => {
    expect(countSpans('application/x-protobuf', 'gzip', gzipSync(body))).toEqual({
      spans: 4,
      serverSpans: 2,
    });
  });

  it('in a JSON export, whose kinds are OTLP enum numbers', () => {
    const json = {
      resourceSpans: [
        { scopeSpans: [{ spans: [{ kind: SERVER }, { kind: INTERNAL }] }, { spans: [] }] },
        { scopeSpans: [{ spans: [{ kind: SERVER }] }] },
      ],
    };
    expect(countSpans('application/json', undefined, Buffer.from(JSON.stringify(json)))).toEqual({
      spans: 3,
      serverSpans: 2,
    });
  });

  it('when an export is cut short, then it throws (the sink counts it unread) rather than undercount', () => {
    expect(() =>
      countSpans('application/x-protobuf', undefined, body.subarray(0, body.length - 5)),
    ).toThrow();
  });
});
