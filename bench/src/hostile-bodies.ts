// The "hostile bodies" section: what a request costs the server when its body is shaped to cost
// (long numbers, long escapes, thousands of members, deep nesting), as a ratio to a plain body of
// the same size. DESIGN.md: no body within the limit makes one request cost more than a few times
// a plain body of the same size. The target (3x) is judged in report.ts.
import { type LoadResult, runLoad } from './load.ts';
import { processCpuSeconds, type RunningChild } from './processes.ts';
import { median } from './report.ts';
import type { HostileBodiesFigures, HostileShapeFigures } from './results.ts';

/** Every body is exactly this many bytes: within the default 64 KiB limit, as large as a client may send. */
export const HOSTILE_BODY_BYTES = 60_000;
/** Rounds of plain, shape A, plain, shape B, ..., plain: others' work on the machine hits them all alike. */
export const HOSTILE_ROUNDS = 5;
export const HOSTILE_CONNECTIONS = 4;

export interface BodyShape {
  readonly key: string;
  readonly label: string;
  readonly body: string;
}

/**
 * `head`, then as many `unit`s as fit, then `tail`, padded with spaces before the tail to exactly
 * `bytes` (ASCII only, so characters are bytes).
 */
function fill(bytes: number, head: string, unit: string, tail: string): string {
  const room = bytes - head.length - tail.length;
  const count = Math.floor(room / unit.length);
  return `${head}${unit.repeat(count)}${' '.repeat(room - count * unit.length)}${tail}`;
}

/** `head`, then members of distinct short names (`"k0":0,"k1":0, ...`), then `tail`, padded to exactly `bytes`. */
function distinctMembers(bytes: number, head: string, tail: string): string {
  const members: string[] = [];
  let size = head.length + tail.length;
  for (let index = 0; ; index += 1) {
    const member = `,"k${index.toString(36)}":0`;
    if (size + member.length > bytes) break;
    members.push(member);
    size += member.length;
  }
  return `${head}${members.join('')}${' '.repeat(bytes - size)}${tail}`;
}

/** Arrays nested as deep as `bytes` allows, inside an unknown member. */
function deepNesting(bytes: number, head: string): string {
  const depth = Math.floor((bytes - head.length - 1) / 2);
  return fill(bytes, `${head}${'['.repeat(depth)}`, ' ', `${']'.repeat(depth)}}`);
}

/**
 * The plain body and the hostile ones, each of exactly `bytes` bytes, each with an id of its own:
 * its first request creates the plant, the others are retries (200, nothing stored), so memory
 * stays flat however many are sent.
 */
export function bodyShapes(bytes: number, firstId: bigint): { plain: BodyShape; hostile: BodyShape[] } {
  const id = (offset: number) => `{"id":${firstId + BigInt(offset)}`;
  const named = (offset: number) => `${id(offset)},"name":"Monstera"`;
  const plain: BodyShape = {
    key: 'plain',
    label: 'plain: a long name',
    body: fill(bytes, `${id(0)},"name":"`, 'a', '"}'),
  };
  const hostile: BodyShape[] = [
    {
      key: 'long-number',
      label: 'a number of 60 KB digits in an unknown member',
      body: fill(bytes, `${named(1)},"extra":1`, '0', '1}'),
    },
    {
      key: 'long-id',
      label: 'an id of 60 KB digits (refused: out of range)',
      body: fill(bytes, '{"name":"Monstera","id":1', '0', '1}'),
    },
    {
      key: 'long-exponent',
      label: 'a number with an exponent of 60 KB digits',
      body: fill(bytes, `${named(2)},"extra":1e-`, '0', '1}'),
    },
    {
      key: 'escapes',
      label: 'a name of escapes (\\u00e9 and \\")',
      body: fill(bytes, `${id(3)},"name":"`, '\\u00e9\\"', '"}'),
    },
    {
      key: 'many-members',
      label: 'thousands of small unknown members',
      body: distinctMembers(bytes, named(4), '}'),
    },
    {
      key: 'repeated-id',
      label: 'the id given thousands of times',
      body: fill(bytes, `${named(5)}`, `,"id":${firstId + 5n}`, '}'),
    },
    {
      key: 'many-values',
      label: 'an array of thousands of small numbers',
      body: fill(bytes, `${named(6)},"extra":[0`, ',0', ']}'),
    },
    {
      key: 'deep-nesting',
      label: 'arrays nested as deep as the size allows',
      body: deepNesting(bytes, `${named(7)},"extra":`),
    },
    {
      key: 'whitespace',
      label: 'whitespace between the members',
      body: fill(bytes, `${named(8)}`, ' ', '}'),
    },
  ];
  return { plain, hostile };
}

interface Segment {
  readonly cpuUsPerRequest: number;
  readonly answered: number;
}

/** Sends one body for a while and measures the server's CPU time per answered request. */
async function measureSegment(
  child: RunningChild,
  token: string,
  body: string,
  seconds: number,
): Promise<Segment> {
  const cpuBefore = processCpuSeconds(child.pid);
  const result: LoadResult = await runLoad({
    url: child.url,
    connections: HOSTILE_CONNECTIONS,
    durationSeconds: seconds,
    token,
    nextBody: () => body,
  });
  const cpuSeconds = processCpuSeconds(child.pid) - cpuBefore;
  const answered = result.ok + result.non2xx;
  if (answered === 0) throw new Error('no request was answered');
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.recentOutput()}`);
  return { cpuUsPerRequest: (cpuSeconds * 1e6) / answered, answered };
}

/** The answer to one request of a body, so that each shape's status is known (and a refusal seen). */
async function statusOf(child: RunningChild, token: string, body: string): Promise<number> {
  const response = await fetch(`${child.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Runs the section against a started service: each shape's status, each body cut short once, a
 * warm-up of every body, then
 * HOSTILE_ROUNDS rounds of plain, A, plain, B, ..., plain, each shape's ratio taken to the mean
 * of the two plain segments around it.
 */
export async function measureHostileBodies(options: {
  readonly child: RunningChild;
  readonly token: string;
  readonly segmentSeconds: number;
  readonly warmupSeconds: number;
  readonly firstId: bigint;
  readonly log: (line: string) => void;
}): Promise<HostileBodiesFigures> {
  const { child, token, segmentSeconds, log } = options;
  const { plain, hostile } = bodyShapes(HOSTILE_BODY_BYTES, options.firstId);
  const plainStatus = await statusOf(child, token, plain.body);
  if (plainStatus !== 200) throw new Error(`the plain body was answered ${plainStatus}`);
  const statuses = new Map<string, number>();
  for (const shape of hostile) statuses.set(shape.key, await statusOf(child, token, shape.body));
  // Each body once more, cut short (a 400): the service is measured as one that has seen bad input,
  // as it will have in production. V8 runs a read of a string slower for good once it has read
  // past the end there, so a reader that does so would show it here.
  for (const shape of [plain, ...hostile]) await statusOf(child, token, shape.body.slice(0, -2));
  for (const shape of [plain, ...hostile]) {
    await measureSegment(child, token, shape.body, options.warmupSeconds);
  }

  const plainCpu: number[] = [];
  const shapeCpu = new Map<string, number[]>(hostile.map((shape) => [shape.key, []]));
  const shapeRatios = new Map<string, number[]>(hostile.map((shape) => [shape.key, []]));
  for (let round = 1; round <= HOSTILE_ROUNDS; round += 1) {
    let before = await measureSegment(child, token, plain.body, segmentSeconds);
    plainCpu.push(before.cpuUsPerRequest);
    const line: string[] = [];
    for (const shape of hostile) {
      const measured = await measureSegment(child, token, shape.body, segmentSeconds);
      const after = await measureSegment(child, token, plain.body, segmentSeconds);
      plainCpu.push(after.cpuUsPerRequest);
      const ratio = measured.cpuUsPerRequest / ((before.cpuUsPerRequest + after.cpuUsPerRequest) / 2);
      shapeCpu.get(shape.key)?.push(measured.cpuUsPerRequest);
      shapeRatios.get(shape.key)?.push(ratio);
      line.push(`${shape.key} ${ratio.toFixed(2)}x`);
      before = after;
    }
    log(
      `  round ${round} of ${HOSTILE_ROUNDS}: plain ${Math.round(median(plainCpu))} us/req; ${line.join(', ')}`,
    );
  }

  const shapes: HostileShapeFigures[] = hostile.map((shape) => ({
    key: shape.key,
    label: shape.label,
    status: statuses.get(shape.key) ?? 0,
    cpuUsPerRequest: shapeCpu.get(shape.key) ?? [],
    ratios: shapeRatios.get(shape.key) ?? [],
  }));
  return {
    bytes: HOSTILE_BODY_BYTES,
    connections: HOSTILE_CONNECTIONS,
    segmentSeconds,
    plainLabel: plain.label,
    plainCpuUsPerRequest: plainCpu,
    shapes,
  };
}
