import type { DestinationStream } from 'pino';

/** Where the log lines go: a stream that never makes the process wait. */
export interface LogDestination extends DestinationStream {
  /** Lines dropped so far: the stream was broken, or its reader too slow. */
  dropped(): number;
  /** Resolves once what is queued is written, or after `timeoutMs`, or at once when the stream is broken. */
  flush(timeoutMs: number): Promise<void>;
}

/** The queue a stalled reader may build up before lines are dropped. */
export const QUEUE_LIMIT_BYTES = 4 * 1024 * 1024;

type OutputStream = NodeJS.WritableStream & { readonly writableLength: number };

/**
 * The log destination of the service: standard output, written asynchronously, never waited for
 * (DESIGN.md: stopping never hangs, whatever state stdout is in).
 *
 * pino's default destination (sonic-boom, synchronous) loops on EAGAIN and EPIPE: with a stdout
 * pipe whose reader is gone or stalled, SIGTERM never ended the process. Here a line goes to
 * `process.stdout`, which on Linux queues in memory when the pipe is full. A write error (EPIPE,
 * EBADF) marks the stream broken and later lines are dropped; past QUEUE_LIMIT_BYTES queued, lines
 * are dropped too, and how many is said in a line once the reader catches up.
 */
export function stdoutDestination(
  stream: OutputStream = process.stdout,
  limitBytes = QUEUE_LIMIT_BYTES,
): LogDestination {
  let broken = false;
  let dropped = 0;
  let droppedUnsaid = 0;
  stream.on('error', () => {
    broken = true;
  });
  const write = (line: string): void => {
    if (broken || stream.writableLength > limitBytes) {
      dropped += 1;
      droppedUnsaid += 1;
      return;
    }
    if (droppedUnsaid > 0) {
      // pino's own line format, so that log shippers read it like any other (level 40: warn).
      stream.write(
        `${JSON.stringify({ level: 40, time: Date.now(), dropped: droppedUnsaid, msg: 'log lines dropped: stdout was not being read' })}\n`,
      );
      droppedUnsaid = 0;
    }
    stream.write(line);
  };
  return {
    write,
    dropped: () => dropped,
    flush: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (broken || stream.writableLength === 0) {
          resolve();
          return;
        }
        const done = (): void => {
          clearTimeout(timer);
          stream.off('drain', done);
          stream.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        stream.once('drain', done);
        stream.once('error', done);
      }),
  };
}
