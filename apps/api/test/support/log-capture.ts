import type { DestinationStream } from 'pino';

/** One JSON log line as pino writes it. */
export type LogLine = Record<string, unknown> & { readonly level: number; readonly msg?: string };

export interface LogCapture {
  readonly destination: DestinationStream;
  /** Every line written so far, parsed. */
  lines(): LogLine[];
  /** The raw text written so far, to search for what must never appear. */
  text(): string;
  /** The request log lines (one per request that reached the app). */
  requests(): LogLine[];
}

/** A pino destination that keeps what it is given, so that tests can read the logs. */
export function captureLogs(): LogCapture {
  const chunks: string[] = [];
  const lines = (): LogLine[] =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogLine);
  return {
    destination: { write: (chunk: string) => void chunks.push(chunk) },
    lines,
    text: () => chunks.join(''),
    requests: () => lines().filter((line) => typeof line.requestId === 'string'),
  };
}
