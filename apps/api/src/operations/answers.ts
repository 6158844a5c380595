// The answers an operation's description implies, so that no operation lists them by hand: a scope
// brings the bearer check's 401 and 403, a parameter the 400 that names it, a body its reader's refusals,
// storage its 503.
import { DEFAULT_SCOPES } from '../auth/credentials.ts';
import { ErrorBodySchema } from './answer-bodies.ts';
import {
  BAD_PARAMETER_EXAMPLES,
  type ErrorExamples,
  PAYLOAD_TOO_LARGE_EXAMPLES,
  READ_SCOPE_EXAMPLES,
  REQUEST_TIMEOUT_EXAMPLES,
  STORAGE_UNAVAILABLE_EXAMPLES,
  UNAUTHORIZED_EXAMPLES,
  UNSUPPORTED_MEDIA_TYPE_EXAMPLES,
  UNSUPPORTED_PATCH_TYPE_EXAMPLES,
  WRITE_SCOPE_EXAMPLES,
} from './error-examples.ts';
import type { Answer, Answers, Body, Header, Operation } from './operation.ts';

/** The headers the document describes once, in its components (openapi/components.ts). */
export type SharedHeader = 'WWW-Authenticate' | 'Retry-After' | 'ETag';

export const sharedHeader = (name: SharedHeader): Header => ({ $ref: `#/components/headers/${name}` });

/** A failure: the Error body, with real answers of the service as its examples (see error-examples.ts). */
export function failure(
  description: string,
  examples: ErrorExamples,
  headers?: Readonly<Record<string, Header>>,
): Answer {
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    body: { schema: ErrorBodySchema, examples },
  };
}

const CHALLENGE = { 'WWW-Authenticate': sharedHeader('WWW-Authenticate') };
export const RETRY_AFTER = { 'Retry-After': sharedHeader('Retry-After') };

const UNAUTHORIZED = failure(
  'No credential, or not a valid one. For a JWT access token the message and `error_description` name the check that failed.',
  UNAUTHORIZED_EXAMPLES,
  CHALLENGE,
);

/** 403: a valid JWT access token without the scope (a static token holds every scope). */
const forbidden = (scope: 'read' | 'write', examples: ErrorExamples) =>
  failure(
    `A valid JWT access token without the scope \`${DEFAULT_SCOPES[scope]}\` (JWT_SCOPE_${scope.toUpperCase()}); \`WWW-Authenticate\` says \`error="insufficient_scope"\` and the scope needed. Nothing was read or changed.`,
    examples,
    CHALLENGE,
  );
const FORBIDDEN = {
  read: forbidden('read', READ_SCOPE_EXAMPLES),
  write: forbidden('write', WRITE_SCOPE_EXAMPLES),
};

const BAD_PARAMETER = failure(
  'A parameter is not what the operation takes; the message names it. Nothing was read or changed.',
  BAD_PARAMETER_EXAMPLES,
);

const STORAGE_UNAVAILABLE = failure(
  'Storage is unavailable; nothing was read or changed. Retry later.',
  STORAGE_UNAVAILABLE_EXAMPLES,
  RETRY_AFTER,
);

export const REQUEST_TIMEOUT = failure(
  'The request took too long to arrive; the connection is closed.',
  REQUEST_TIMEOUT_EXAMPLES,
);

const PAYLOAD_TOO_LARGE = failure(
  'The body is larger than the configured limit (64 KiB by default).',
  PAYLOAD_TOO_LARGE_EXAMPLES,
);

/** The refusals of each media type's body reader, besides the 400 of its content. */
const BODY_ANSWERS: Readonly<Record<Body['mediaType'], Answers>> = {
  'application/json': {
    408: REQUEST_TIMEOUT,
    413: PAYLOAD_TOO_LARGE,
    415: failure(
      'The body is not `application/json`, names a charset other than UTF-8, or has a `Content-Encoding` other than `identity` (bodies are never decompressed).',
      UNSUPPORTED_MEDIA_TYPE_EXAMPLES,
    ),
  },
  'application/merge-patch+json': {
    408: REQUEST_TIMEOUT,
    413: PAYLOAD_TOO_LARGE,
    415: failure(
      'The body is not `application/merge-patch+json` (`application/json` included), names a charset other than UTF-8, or has a `Content-Encoding` other than `identity`. `Accept-Patch` names the media type a PATCH takes (RFC 5789).',
      UNSUPPORTED_PATCH_TYPE_EXAMPLES,
      {
        'Accept-Patch': {
          description: 'The media type of the patch documents taken: `application/merge-patch+json`.',
          required: true,
          schema: { type: 'string', pattern: '^application/merge-patch\\+json$' },
        },
      },
    ),
  },
};

/** Every answer of an operation: those its description implies, then its own (which replace them). */
export function answersOf(operation: Operation): Answers {
  const { scope, body } = operation;
  return {
    ...(operation.params === undefined && operation.query === undefined ? {} : { 400: BAD_PARAMETER }),
    ...(scope === 'none' ? {} : { 401: UNAUTHORIZED, 403: FORBIDDEN[scope] }),
    ...(body === undefined ? {} : BODY_ANSWERS[body.mediaType]),
    ...(operation.storage === true ? { 503: STORAGE_UNAVAILABLE } : {}),
    ...operation.responses,
  };
}
