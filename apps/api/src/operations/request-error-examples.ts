// The answers any request may get, whatever its path (the document's components.responses): real
// answers of the service, word for word, provoked by test/openapi-examples.test.ts like those of the
// operations (error-examples.ts).
import { type ErrorExamples, example } from './error-examples.ts';

export const NOT_FOUND_EXAMPLES = {
  unknownPath: example('An unknown path', 404, 'there is nothing at GET /plant'),
} satisfies ErrorExamples;

export const METHOD_NOT_ALLOWED_EXAMPLES = {
  otherMethod: example('PUT on /plants', 405, 'PUT is not allowed here; allowed: HEAD, GET, POST'),
} satisfies ErrorExamples;

export const MALFORMED_REQUEST_EXAMPLES = {
  malformed: example('A request line or header the HTTP parser refuses', 400, 'bad request'),
  noHost: example('HTTP/1.1 without a Host header', 400, 'the Host header is required'),
  connect: example(
    'CONNECT (a tunnel through a proxy)',
    400,
    'CONNECT is not supported: this service is not a proxy',
  ),
  hostTwice: example('Two Host headers', 400, 'the Host header must be sent once'),
  hostInvalid: example(
    'A Host that is not host[:port] (with a space, an @, or empty)',
    400,
    'the Host header must be a host name or address, with an optional port',
  ),
  transferCodingNotLast: example(
    'Transfer-Encoding: gzip (chunked not last: where the body ends cannot be known)',
    400,
    'the body cannot be framed: Transfer-Encoding must end with chunked, once',
  ),
  fragment: example(
    'A request target with a #fragment',
    400,
    'the request target must not have a fragment (#)',
  ),
} satisfies ErrorExamples;

export const SERVICE_UNAVAILABLE_EXAMPLES = {
  outOfDescriptors: example(
    'The process is out of file descriptors (EMFILE): a file or a connection could not be opened',
    503,
    'the service is unavailable, try again later',
  ),
} satisfies ErrorExamples;

export const NOT_IMPLEMENTED_EXAMPLES = {
  transferCoding: example(
    'Transfer-Encoding: gzip, chunked (a transfer coding other than chunked alone)',
    501,
    'the only Transfer-Encoding supported is chunked: bodies are never decoded',
  ),
} satisfies ErrorExamples;

export const VERSION_NOT_SUPPORTED_EXAMPLES = {
  otherVersion: example(
    'HTTP/2.0, HTTP/1.2 or HTTP/0.9 in the request line',
    505,
    'the HTTP version is not supported: only HTTP/1.0 and HTTP/1.1 are',
  ),
} satisfies ErrorExamples;

export const EXPECTATION_FAILED_EXAMPLES = {
  otherExpectation: example(
    'An Expect header other than 100-continue',
    417,
    'the only expectation supported is "Expect: 100-continue"',
  ),
} satisfies ErrorExamples;

export const HEADERS_TOO_LARGE_EXAMPLES = {
  tooLarge: example('Headers over 16 KiB', 431, 'request header fields too large'),
} satisfies ErrorExamples;
