// Answers the service really sends, shown in the published document as the examples of each error
// response, word for word: test/openapi-examples.test.ts provokes every one and compares. A new way to
// fail gets its example here and its provocation there.
import type { ErrorBody } from '../http/middleware/error-responses.ts';

/** An OpenAPI Example object whose value is an Error body. */
export interface ErrorExample {
  readonly summary: string;
  readonly value: ErrorBody;
}

export type ErrorExamples = Readonly<Record<string, ErrorExample>>;

export const example = (summary: string, error: number, message: string): ErrorExample => ({
  summary,
  value: { error, message },
});

/** POST /plants, 400: the body, then its fields, in the order the service checks them. */
export const BAD_REQUEST_EXAMPLES = {
  authorizationTwice: example('Two Authorization headers', 400, 'the Authorization header must be sent once'),
  contentTypeTwice: example('Two Content-Type headers', 400, 'the Content-Type header must be sent once'),
  emptyBody: example('No body', 400, 'request body is required'),
  notUtf8: example('A body that is not UTF-8', 400, 'the request body is not valid UTF-8'),
  notJson: example(
    'A body that is not JSON',
    400,
    'the request body is not valid JSON: unexpected end of the text at position 9',
  ),
  trailingData: example(
    'JSON followed by more',
    400,
    'the request body is not valid JSON: unexpected character "x" at position 27',
  ),
  notAnObject: example(
    'JSON that is not an object',
    400,
    'invalid plant: must be a JSON object, not an array',
  ),
  missingName: example('No name', 400, 'invalid plant: name is required'),
  idAString: example('An id in quotes', 400, 'invalid plant: id must be an integer, not a string'),
  idFraction: example(
    'An id with a fraction',
    400,
    'invalid plant: id must be an integer, without a fractional part',
  ),
  idBeyondInt64: example(
    'An id beyond int64',
    400,
    'invalid plant: id must be an integer between -9223372036854775808 and 9223372036854775807',
  ),
  nameNull: example('A null name', 400, 'invalid plant: name must be a string, not null'),
  nameWithNul: example(
    'A name no storage keeps exactly',
    400,
    'invalid plant: name must not contain the NUL character (U+0000)',
  ),
} satisfies ErrorExamples;

/** PUT of a plant, 400: what a replacement adds to a create's refusals. */
export const REPLACE_BAD_REQUEST_EXAMPLES = {
  otherId: example(
    "An id member that is not the path's id",
    400,
    'invalid plant: id must be the id of the plant it changes, 7, or left out',
  ),
  tagNull: example(
    'A null tag (leave the tag out to remove it)',
    400,
    'invalid plant: tag must be a string, not null',
  ),
} satisfies ErrorExamples;

/** PATCH of a plant, 400: a merge patch's members. */
export const PATCH_BAD_REQUEST_EXAMPLES = {
  tagNumber: example(
    'A tag that is neither a string nor null',
    400,
    'invalid plant: tag must be a string, or null to remove it, not a number',
  ),
} satisfies ErrorExamples;

/** 400 of the operations that read or delete plants: their parameters, each named. */
export const BAD_PARAMETER_EXAMPLES = {
  idNotDecimal: example(
    'An id that is not plain decimal (GET /plants/abc, /plants/007, /plants/+7)',
    400,
    'invalid parameter: id must be an integer in plain decimal (digits with an optional leading -; no +, leading zeros, fraction or exponent)',
  ),
  idBeyondInt64: example(
    'An id beyond int64',
    400,
    'invalid parameter: id must be an integer between -9223372036854775808 and 9223372036854775807',
  ),
  limitOutOfRange: example(
    'limit=0 or limit=1001',
    400,
    'invalid parameter: limit must be an integer from 1 to 1000',
  ),
  limitTwice: example('limit=1&limit=2', 400, 'invalid parameter: limit must be given once'),
  afterNotDecimal: example(
    'after=x',
    400,
    'invalid parameter: after must be an integer in plain decimal (digits with an optional leading -; no +, leading zeros, fraction or exponent)',
  ),
  tagTwice: example('tag=a&tag=b', 400, 'invalid parameter: tag must be given once'),
  tagNotUtf8: example(
    'tag=%FF: a percent-escape that is not UTF-8 (never read as U+FFFD)',
    400,
    'invalid parameter: tag must be UTF-8 once percent-decoded',
  ),
  tagWithNul: example(
    'tag=%00: a tag no plant can hold',
    400,
    'invalid parameter: tag must not contain the NUL character (U+0000)',
  ),
} satisfies ErrorExamples;

/** 412 of the operations that change or delete a plant with If-Match. */
export const PRECONDITION_FAILED_EXAMPLES = {
  otherContent: example(
    "If-Match does not name the plant's current ETag",
    412,
    'the plant with id 7 does not meet the precondition: it holds other content, or there is none',
  ),
  noPlant: example(
    'If-Match, and no plant under the id',
    412,
    'the plant with id 8 does not meet the precondition: it holds other content, or there is none',
  ),
} satisfies ErrorExamples;

/** 404 of the operations on one plant. */
export const PLANT_NOT_FOUND_EXAMPLES = {
  noPlant: example('Nothing is stored under the id', 404, 'there is no plant with id 8'),
} satisfies ErrorExamples;

/** 401, wherever a token is needed. */
export const UNAUTHORIZED_EXAMPLES = {
  noToken: example('No Authorization header', 401, 'a bearer token is required'),
  wrongToken: example('A token the service does not accept', 401, 'the bearer token is not valid'),
  notBearer: example('Another scheme than Bearer', 401, 'the Authorization header must be "Bearer <token>"'),
  expiredJwt: example(
    'A JWT access token that has expired (the message names the failed check)',
    401,
    'the bearer token is not valid: the token has expired (exp)',
  ),
} satisfies ErrorExamples;

/** 403 of the operations that create or delete plants: a JWT without JWT_SCOPE_WRITE. */
export const WRITE_SCOPE_EXAMPLES = {
  noWriteScope: example(
    'A JWT access token without plants:write',
    403,
    'the bearer token does not hold the scope plants:write',
  ),
} satisfies ErrorExamples;

/** 403 of the operations that read plants (and /metrics): a JWT without JWT_SCOPE_READ. */
export const READ_SCOPE_EXAMPLES = {
  noReadScope: example(
    'A JWT access token without plants:read',
    403,
    'the bearer token does not hold the scope plants:read',
  ),
} satisfies ErrorExamples;

/** 503 of every operation that needs a token, while the identity provider's keys were never loaded. */
export const KEYS_UNAVAILABLE_EXAMPLES = {
  keysUnavailable: example(
    "A JWT while the identity provider's keys were never loaded",
    503,
    "the identity provider's keys are not available yet, try again later",
  ),
} satisfies ErrorExamples;

export const CONFLICT_EXAMPLES = {
  otherContent: example(
    'The id is stored with another name or tag',
    409,
    'a plant with id 7 already exists with a different name or tag',
  ),
} satisfies ErrorExamples;

export const PAYLOAD_TOO_LARGE_EXAMPLES = {
  overLimit: example(
    'Over the default BODY_LIMIT of 64 KiB',
    413,
    'the request body is larger than 65536 bytes',
  ),
} satisfies ErrorExamples;

export const UNSUPPORTED_MEDIA_TYPE_EXAMPLES = {
  notJson: example(
    'Content-Type: text/plain, or a charset other than UTF-8',
    415,
    'the request body must be application/json (UTF-8)',
  ),
  encoded: example(
    'Content-Encoding: gzip (bodies are read as sent, never decompressed)',
    415,
    'the request body must not be encoded: Content-Encoding is not supported',
  ),
} satisfies ErrorExamples;

/** 415 of PATCH of a plant, with Accept-Patch. */
export const UNSUPPORTED_PATCH_TYPE_EXAMPLES = {
  notMergePatch: example(
    'Content-Type: application/json, or anything but a merge patch',
    415,
    'the request body must be application/merge-patch+json (UTF-8)',
  ),
  encoded: UNSUPPORTED_MEDIA_TYPE_EXAMPLES.encoded,
} satisfies ErrorExamples;

export const INTERNAL_ERROR_EXAMPLES = {
  fault: example('A fault of the service (the log has the details)', 500, 'internal server error'),
} satisfies ErrorExamples;

/** 503 of POST /plants. */
export const STORAGE_UNAVAILABLE_EXAMPLES = {
  unavailable: example('The database does not answer', 503, 'storage is unavailable, try again later'),
} satisfies ErrorExamples;

/** 503 of GET /readyz. */
export const NOT_READY_EXAMPLES = {
  unavailable: example('The database does not answer', 503, 'storage is unavailable, try again later'),
  notReady: example('The database answers with an error', 503, 'storage is not ready'),
  stopping: example('The service is stopping (SIGTERM)', 503, 'the server is shutting down'),
  keysNotLoaded: example(
    "JWT is on and the identity provider's keys were never loaded",
    503,
    "the identity provider's keys are not loaded yet",
  ),
} satisfies ErrorExamples;

/** 408 of the operations that read a body: it took too long to arrive. */
export const REQUEST_TIMEOUT_EXAMPLES = {
  tooSlow: example('Headers or body too slow to arrive', 408, 'request timeout'),
} satisfies ErrorExamples;
