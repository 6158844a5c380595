// Hostile bodies. DESIGN.md: no body within the limit makes one request cost more than a few times a
// plain body of the same size (the target, 3x, is in report.ts). Bodies of exactly 60,000 bytes, each
// valid JSON, sent to one service on memory: on 4 connections, in rounds of plain, A, plain, B, ...,
// each shape's CPU per request taken to the plain body's just before and after it. Each body keeps one
// id: its first request creates the plant, the others are retries (200, nothing stored).
import { type Context, checkOnce, type Part, runGroup, serverSide, startService } from '../harness.ts';

const BYTES = 60_000;

/** `head`, as many `unit`s as fit, spaces, then `tail`: exactly `bytes` (ASCII, so characters are bytes). */
function fill(head: string, unit: string, tail: string, bytes = BYTES): string {
  const room = bytes - head.length - tail.length;
  const count = Math.floor(room / unit.length);
  return `${head}${unit.repeat(count)}${' '.repeat(room - count * unit.length)}${tail}`;
}

/** The plain body and the shapes, each with an id of its own, far from the load's (which start at 2^53). */
export function bodyShapes(firstId: bigint): Array<{ key: string; label: string; body: string }> {
  const id = (offset: number) => `{"id":${firstId + BigInt(offset)}`;
  const named = (offset: number) => `${id(offset)},"name":"Monstera"`;
  let members = '';
  for (let index = 0; named(4).length + members.length + 20 < BYTES; index += 1)
    members += `,"k${index.toString(36)}":0`;
  const depth = Math.floor((BYTES - named(7).length - 10) / 2);
  return [
    { key: 'plain', label: 'plain: a long name', body: fill(`${id(0)},"name":"`, 'a', '"}') },
    {
      key: 'long-number',
      label: 'a number of 60 KB digits in an unknown member',
      body: fill(`${named(1)},"extra":1`, '0', '1}'),
    },
    {
      key: 'long-id',
      label: 'an id of 60 KB digits (refused: out of range)',
      body: fill('{"name":"Monstera","id":1', '0', '1}'),
    },
    {
      key: 'long-exponent',
      label: 'a number with an exponent of 60 KB digits',
      body: fill(`${named(2)},"extra":1e-`, '0', '1}'),
    },
    {
      key: 'escapes',
      label: 'a name of escapes (\\u00e9 and \\")',
      body: fill(`${id(3)},"name":"`, '\\u00e9\\"', '"}'),
    },
    {
      key: 'many-members',
      label: 'thousands of small unknown members',
      body: fill(`${named(4)}${members}`, ' ', '}'),
    },
    {
      key: 'repeated-id',
      label: 'the id given thousands of times',
      body: fill(named(5), `,"id":${firstId + 5n}`, '}'),
    },
    {
      key: 'many-values',
      label: 'an array of thousands of small numbers',
      body: fill(`${named(6)},"extra":[0`, ',0', ']}'),
    },
    {
      key: 'deep-nesting',
      label: 'arrays nested as deep as the size allows',
      body: fill(`${named(7)},"extra":${'['.repeat(depth)}`, ' ', `${']'.repeat(depth)}}`),
    },
    { key: 'whitespace', label: 'whitespace between the members', body: fill(named(8), ' ', '}') },
  ];
}

async function run(context: Context) {
  const child = await startService(context, 'service (memory:)', { DATABASE_URL: 'memory:' });
  try {
    const shapes = bodyShapes(-(2n ** 62n) - BigInt(Math.floor(Math.random() * 1e9)) * 16n);
    const sides = [];
    for (const shape of shapes) {
      // The status it is answered (the long id is refused) is what its load expects.
      const first = await fetch(`${child.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' },
        body: shape.body,
        signal: AbortSignal.timeout(30_000),
      });
      await first.arrayBuffer();
      const traffic = { token: context.token, body: () => shape.body, expect: first.status };
      // Once more, cut short (a 400): the service is measured as one that has seen bad input, as V8
      // reads a string slower for good at a place where it once read past the end.
      await checkOnce(child, { ...traffic, body: () => shape.body.slice(0, -2), expect: 400 });
      const key = shape.key === 'plain' ? 'plain' : `hostile-${shape.key}`;
      sides.push(
        serverSide(context, {
          key,
          label: `${shape.label} (${first.status})`,
          baselines: key === 'plain' ? [] : ['plain'],
          shared: true,
          launch: async () => child,
          traffic,
        }),
      );
    }
    const order = sides.flatMap((side) => (side.key === 'plain' ? [] : ['plain', side.key]));
    return await runGroup(context, sides, {
      order,
      connections: [4],
      seconds: Math.max(0.5, context.options.durationSeconds / 8),
    });
  } finally {
    await child.stop();
  }
}

export const hostilePart: Part = { name: 'hostile', keys: [], usesPostgres: false, run };
