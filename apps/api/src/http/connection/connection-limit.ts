import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Logger } from 'pino';

/**
 * File descriptors MAX_CONNECTIONS=auto leaves to the process beside its clients' connections: the
 * database pool, the embedded database's files, webhook deliveries, the documentation's files, Node's own.
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

/** MAX_CONNECTIONS as a number: `auto` is the open files limit less RESERVED_DESCRIPTORS; undefined: no cap. */
export function connectionCap(setting: number | 'auto', limit: number | undefined): number | undefined {
  if (setting !== 'auto') return setting;
  return limit === undefined ? undefined : Math.max(1, limit - RESERVED_DESCRIPTORS);
}

// One warning at most this often while connections are dropped: a flood must not flood the log too.
const WARN_EVERY_MS = 10_000;

/**
 * Caps the server's open connections: Node closes each one over the cap as soon as it is accepted,
 * without reading it. Kept below the open files limit, the process always has descriptors left for
 * its database and files, so that the requests it did accept are answered (and never with a 500 for
 * EMFILE). Says in the log when connections are dropped, with how many since its last line.
 */
export function capConnections(server: Server, maxConnections: number | undefined, logger: Logger): void {
  if (maxConnections === undefined) return;
  server.maxConnections = maxConnections;
  let dropped = 0;
  let saidAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    dropped += 1;
    const now = performance.now();
    if (now - saidAt < WARN_EVERY_MS) return;
    logger.warn(
      { maxConnections, dropped },
      'MAX_CONNECTIONS reached: new connections are closed unanswered',
    );
    dropped = 0;
    saidAt = now;
  });
}
