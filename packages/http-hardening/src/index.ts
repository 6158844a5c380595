// HTTP hardening for a Koa service on node:http. The server-level parts are applied by hardenServer; the
// request's head and its JSON body are checked by Koa middleware, whose refusals are HttpErrors (Koa's
// convention: status, expose, headers). README.md says what each part protects against.

export { openFilesLimit, RESERVED_DESCRIPTORS } from './connection/connection-limit.ts';
export { errorBodyAnswer, type FormatRawAnswer, type RawAnswer } from './connection/raw-answer.ts';
export { MAX_WAITING } from './connection/turns.ts';
export {
  DEFAULT_SEND_TIMEOUT_MS,
  type HardenedServer,
  type HardenServerOptions,
  hardenServer,
} from './harden-server.ts';
export { HttpError } from './http-error.ts';
export { type JsonNumberValue, jsonNumberValue, readJsonNumber } from './json/exact.ts';
export { isUtf8JsonMediaType } from './json/media-type.ts';
export { parseJsonShallow } from './json/shallow.ts';
export type { HardeningLogger } from './logger.ts';
export {
  allowBody,
  DEFAULT_BODY_LIMIT,
  type JsonBodyOptions,
  type JsonBodyState,
  jsonBody,
} from './middleware/json-body.ts';
export type { KoaContext, KoaMiddleware } from './middleware/koa-context.ts';
export { isRepeated } from './middleware/repeated-header.ts';
export { checkRequestHead } from './middleware/request-head.ts';
