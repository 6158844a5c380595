import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { HardeningLogger } from '../logger.ts';

/**
 * File descriptors `maxConnections: 'auto'` leaves to the process beside its clients' connections by
 * default: a database pool, files it serves, outbound requests, Node's own.
 */
export const RESERVED_DESCRIPTORS = 128;

/** The open files limit assumed where the process cannot read its own (no /proc): the usual soft limit. */
const ASSUMED_OPEN_FILES = 1024;

/** This process's limit of open files (RLIMIT_NOFILE, as Node raised it at start); undefined when unlimited. */
export function openFilesLimit(limits = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limits, 'utf8');
  } catch {
    return ASSUMED_OPEN_FILES;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return ASSUMED_OPEN_FILES;
  return soft === 'unlimited' ? undefined : Number(soft);
}

/**
 * The cap as a number: `auto` is the open files limit less `reserved` (at least 1); a number is taken as
 * it is; Infinity, or `auto` without a limit: undefined, no cap.
 */
export function connectionCap(
  setting: number | 'auto',
  limit: number | undefined,
  reserved = RESERVED_DESCRIPTORS,
): number | undefined {
  if (setting === Number.POSITIVE_INFINITY) return undefined;
  if (setting !== 'auto') return setting;
  return limit === undefined ? undefined : Math.max(1, limit - reserved);
}

// One warning at most this often while connections are dropped: a flood must not flood the log too.
const WARN_EVERY_MS = 10_000;

/**
 * Caps the server's open connections: Node closes each one over the cap as soon as it is accepted,
 * without reading it. Kept below the open files limit, the process always has descriptors left for
 * its database and files, so that the requests it did accept are answered (and never fail for
 * EMFILE). Says in the log when connections are dropped, with how many since its last line; `name`
 * is how that line names the cap (the setting an operator would change).
 */
export function capConnections(
  server: Server,
  maxConnections: number | undefined,
  logger: HardeningLogger,
  name: string,
): void {
  if (maxConnections === undefined) return;
  server.maxConnections = maxConnections;
  let dropped = 0;
  let saidAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    dropped += 1;
    const now = performance.now();
    if (now - saidAt < WARN_EVERY_MS) return;
    logger.warn({ maxConnections, dropped }, `${name} reached: new connections are closed unanswered`);
    dropped = 0;
    saidAt = now;
  });
}
