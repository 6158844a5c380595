// What every baseline does for `POST /plants` before any storage: the token check, the body read
// and the parse, kept as small as they can be while doing the same work a real client pays for
// (a baseline that skips the int64 parse or the constant-time compare would flatter itself); and
// how it starts and stops, as the service does.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PlantInput {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

export const BODY_LIMIT = 64 * 1024;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The tokens from API_TOKENS, as the service reads them. */
export function tokensFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env.API_TOKENS ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

/** True when the Authorization header carries one of the tokens; compared in constant time, as the service does. */
export function makeTokenCheck(tokens: readonly string[]): (authorization: string | undefined) => boolean {
  const digests = tokens.map(sha256);
  return (authorization) => {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined) return false;
    const digest = sha256(token);
    let matched = false;
    for (const known of digests) matched = timingSafeEqual(digest, known) || matched;
    return matched;
  };
}

export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/** The whole body, or undefined when it grows past the limit. */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

// Integers rebuilt from their source text (Node 24's reviver context), so ids above 2^53 stay exact.
// Its own copy, not the service's codec: a baseline is what a plain node:http server would do, and
// imports nothing of the service it is measured against.
function reviveExact(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return /^-?[0-9]+$/.test(context.source) ? BigInt(context.source) : value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The plant in the body, or the reason it is refused (a 400). */
export function parsePlant(body: Buffer): PlantInput | string {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body), reviveExact as (key: string, value: unknown) => unknown);
  } catch {
    return 'the request body is not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'the body must be an object';
  const { id, name, tag } = value as Record<string, unknown>;
  if (typeof id !== 'bigint' || id < INT64_MIN || id > INT64_MAX) return 'id must be an int64';
  if (typeof name !== 'string') return 'name must be a string';
  if (tag === undefined) return { id, name };
  if (typeof tag !== 'string') return 'tag must be a string';
  return { id, name, tag };
}

/** The answer to a created plant: name and tag, never the id. */
export function plantResponse(plant: PlantInput): { name: string; tag?: string } {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

/** Listens on PORT and HOST as the service does; SIGTERM closes the server, then `onStop`, then exits. */
export async function listenLikeTheService(server: Server, onStop: () => Promise<void> = async () => {}) {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(process.env.PORT ?? '0'), process.env.HOST ?? '127.0.0.1', resolve);
  });
  process.stdout.write(
    `${JSON.stringify({ msg: 'listening', port: (server.address() as AddressInfo).port })}\n`,
  );
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    onStop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
