import type { DiagLogger } from '@opentelemetry/api';
import type { Logger } from 'pino';

// A collector that stays down makes the same complaint at every export: once a minute is enough.
const REPEAT_AFTER_MS = 60_000;
// Long enough for any message of the SDK's; a longer one is cut, not allowed to fill the log.
const MAX_MESSAGE_LENGTH = 500;

/** The first line of a message or an error's message, cut to MAX_MESSAGE_LENGTH. */
export function oneLine(said: unknown): string {
  const text = said instanceof Error ? said.message : String(said);
  const first = text.split(/\r?\n/, 1)[0] ?? '';
  return first.length > MAX_MESSAGE_LENGTH ? `${first.slice(0, MAX_MESSAGE_LENGTH)}…` : first;
}

/**
 * The SDK's own diagnostics as lines of the service's log, one line each, the message alone: of its
 * arguments only an error's message is kept (never a stack, a file path or an object dumped whole).
 * Errors and warnings are warnings, info is info, the rest debug.
 */
export function diagToLog(logger: Logger): DiagLogger {
  const lastSaid = new Map<string, number>();
  const say = (level: 'warn' | 'info' | 'debug', message: string, args: unknown[]) => {
    const line = oneLine(message);
    const now = performance.now();
    if (now - (lastSaid.get(line) ?? Number.NEGATIVE_INFINITY) < REPEAT_AFTER_MS) return;
    if (lastSaid.size > 100) lastSaid.clear();
    lastSaid.set(line, now);
    const errors = args.filter((arg) => arg instanceof Error).map(oneLine);
    logger[level]({ detail: errors.length > 0 ? errors.join('; ') : undefined }, `traces: ${line}`);
  };
  return {
    error: (message, ...args) => say('warn', message, args),
    warn: (message, ...args) => say('warn', message, args),
    info: (message, ...args) => say('info', message, args),
    debug: (message, ...args) => say('debug', message, args),
    verbose: (message, ...args) => say('debug', message, args),
  };
}
