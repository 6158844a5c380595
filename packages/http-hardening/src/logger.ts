/**
 * Where the server-level parts say what they did (a connection cut off, connections dropped, a refused
 * request). pino's logger fits as it is; so does any `{ info, warn }` taking fields, then a message.
 */
export interface HardeningLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
