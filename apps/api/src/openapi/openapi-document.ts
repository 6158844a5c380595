import { stringifyExactJson } from '@plant-store/domain';
import {
  BAD_PARAMETER_EXAMPLES,
  BAD_REQUEST_EXAMPLES,
  CONFLICT_EXAMPLES,
  type ErrorExamples,
  EXPECTATION_FAILED_EXAMPLES,
  HEADERS_TOO_LARGE_EXAMPLES,
  INTERNAL_ERROR_EXAMPLES,
  KEYS_UNAVAILABLE_EXAMPLES,
  MALFORMED_REQUEST_EXAMPLES,
  METHOD_NOT_ALLOWED_EXAMPLES,
  NOT_FOUND_EXAMPLES,
  NOT_IMPLEMENTED_EXAMPLES,
  NOT_READY_EXAMPLES,
  PAYLOAD_TOO_LARGE_EXAMPLES,
  PLANT_NOT_FOUND_EXAMPLES,
  READ_SCOPE_EXAMPLES,
  REQUEST_TIMEOUT_EXAMPLES,
  SERVICE_UNAVAILABLE_EXAMPLES,
  STORAGE_UNAVAILABLE_EXAMPLES,
  UNAUTHORIZED_EXAMPLES,
  UNSUPPORTED_MEDIA_TYPE_EXAMPLES,
  VERSION_NOT_SUPPORTED_EXAMPLES,
  WRITE_SCOPE_EXAMPLES,
} from './error-examples.ts';
import {
  ErrorBodySchema,
  HealthBodySchema,
  NewPlantObjectSchema,
  PlantIdTextSchema,
  PlantResponseSchema,
  ReadinessBodySchema,
  toComponentSchema,
} from './published-schemas.ts';

/** An OpenAPI 3.1 document as plain data; big integers (the int64 bounds) are bigints. */
export type OpenApiDocument = Record<string, unknown> & {
  readonly openapi: '3.1.0';
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
/** A failure: the Error body, with real answers of the service as its examples (see error-examples.ts). */
const errorResponse = (description: string, examples: ErrorExamples, headers?: Record<string, unknown>) => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { 'application/json': { schema: ref('schemas', 'Error'), examples } },
});
const NO_TOKEN = [] as const;

const UNAUTHORIZED = () =>
  errorResponse(
    'No credential, or not a valid one. For a JWT access token the message and `error_description` name the check that failed.',
    UNAUTHORIZED_EXAMPLES,
    { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
  );
/** 403: a valid JWT access token without the scope (a static token holds every scope). */
const FORBIDDEN = (scope: 'read' | 'write') =>
  errorResponse(
    `A valid JWT access token without the scope \`${scope === 'read' ? 'plants:read' : 'plants:write'}\` (JWT_SCOPE_${scope.toUpperCase()}); \`WWW-Authenticate\` says \`error="insufficient_scope"\` and the scope needed. Nothing was read or changed.`,
    scope === 'read' ? READ_SCOPE_EXAMPLES : WRITE_SCOPE_EXAMPLES,
    { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
  );
/** The security requirement of an operation: the bearer token, with the scope a JWT needs. */
const NEEDS = (scope: 'read' | 'write') => [
  { bearerAuth: [scope === 'read' ? 'plants:read' : 'plants:write'] },
];
const BAD_PARAMETER = () =>
  errorResponse(
    'A parameter is not what the operation takes; the message names it. Nothing was read or changed.',
    BAD_PARAMETER_EXAMPLES,
  );
const PLANT_NOT_FOUND = () => errorResponse('No plant is stored under this id.', PLANT_NOT_FOUND_EXAMPLES);
const STORAGE_UNAVAILABLE = () =>
  errorResponse(
    'Storage is unavailable; nothing was read or changed. Retry later.',
    STORAGE_UNAVAILABLE_EXAMPLES,
    {
      'Retry-After': ref('headers', 'Retry-After'),
    },
  );

/** The groups the operations are listed under, in this order. */
const TAGS = [
  {
    name: 'plants',
    description: 'The store itself: creating, reading, listing and deleting plants. Needs a bearer token.',
  },
  {
    name: 'monitoring',
    description: 'For operators and load balancers: liveness, readiness, metrics.',
  },
  { name: 'documentation', description: 'This description of the interface, as JSON and as this page.' },
  { name: 'webhooks', description: 'What the service POSTs to WEBHOOK_URLS: one request per plant created.' },
];

// What a 400 of POST /plants means: one cause a line, in the order the service checks them.
const BAD_REQUEST_CAUSES = [
  'two `Authorization` headers (with `WWW-Authenticate: Bearer error="invalid_request"`), or two `Content-Type` headers;',
  'the body is empty, is not valid UTF-8, or is not exactly one JSON value (a byte order mark, comments, or data after the value are refused, never repaired);',
  'it is not a NewPlant: not a JSON object; `id` missing, not a JSON integer, or outside int64 (`7.0` is the integer 7; `7.5` and `"7"` are refused); `name` missing or not a string; `tag` not a string (`null` is not one);',
  'a `name` or `tag` holds the NUL character or a lone surrogate, which no storage keeps exactly.',
];
const BAD_REQUEST_DESCRIPTION = `Bad request: nothing was stored, because the request is not one the service takes as it is:

${BAD_REQUEST_CAUSES.map((cause) => `- ${cause}`).join('\n')}

The message names the field and the problem. A request that the HTTP parser refuses (a malformed request line or header) is a 400 too, with the message \`bad request\`, and its connection is closed.`;

type PropertySchema = Record<string, unknown> & { 'x-refused-when'?: string[] };

/** Puts a property's description first, followed by the service's refinements of it, if any. */
function describeProperty(schema: Record<string, unknown>, name: string, description: string): void {
  const properties = schema.properties as Record<string, PropertySchema>;
  const property = properties[name];
  if (property === undefined) throw new Error(`the schema has no property ${name}`);
  const refusals = property['x-refused-when'];
  properties[name] = {
    ...property,
    description:
      refusals === undefined
        ? description
        : `${description} Any JSON string is kept exactly, but the service answers 400 for one that no ` +
          `storage keeps exactly. Its rules, as the 400 message words them: ${refusals.map((rule) => `"${rule}"`).join('; ')}.`,
  };
}

function newPlantSchema(): Record<string, unknown> {
  const schema = toComponentSchema(NewPlantObjectSchema);
  describeProperty(schema, 'id', 'Identification number of the plant: an int64, held exactly end to end.');
  describeProperty(schema, 'name', 'The name of the plant.');
  describeProperty(schema, 'tag', 'Tag to specify the type.');
  return {
    ...schema,
    description:
      'A plant to create. Fields other than `id`, `name` and `tag` are ignored. ' +
      'An `id` written `7.0` or `7e0` is the integer 7.',
    examples: [{ id: 1, name: 'Monstera', tag: 'aroid' }],
  };
}

function plantSchema(): Record<string, unknown> {
  const schema = toComponentSchema(PlantResponseSchema);
  const properties = schema.properties as Record<string, PropertySchema>;
  for (const property of Object.values(properties)) delete property['x-refused-when'];
  describeProperty(schema, 'name', 'The name of the plant, exactly as it was sent.');
  describeProperty(
    schema,
    'tag',
    'Tag to specify the type; present only when it was sent (an empty tag is a tag).',
  );
  return {
    ...schema,
    description: 'A plant as the service answers it: never its `id`.',
    examples: [{ name: 'Monstera', tag: 'aroid' }],
  };
}

const DESCRIPTION = `Creates plants in a store: \`POST /plants\` with a bearer token.

Every failure answers \`application/json\` \`{"error": <HTTP status>, "message": "..."}\`. The checks run in this
order: credential (401), media type (415), size (413), JSON and fields (400), duplicate id (409).

Beyond the operations below: an unknown path answers 404, a known path with another method 405 (with
\`Allow\`), both with the Error body and without a token. A request that the HTTP parser refuses answers 400,
431 (headers too large) or 408 (too slow), with the Error body, and the connection is closed, after the answers
to the requests sent before it on that connection. So does an HTTP/1.1 request without \`Host\` (400), \`CONNECT\`
(400), and an \`Expect\` other than \`100-continue\` (417). HTTP/1.1 framing is read as RFC 9112 says: two \`Host\`
headers or one that is not \`host[:port]\`, or a request target with a \`#\` fragment, 400; a transfer coding other
than \`chunked\` alone, 501 (nothing is read or stored); an HTTP version other than 1.0 and 1.1, 505. While the
service is out of file descriptors, a request that needs one answers 503 with \`Retry-After\`. With \`Expect: 100-continue\`, \`100 Continue\` is sent
only once the credential, media type and declared size are accepted. A request pipelined behind an answer that
closes the connection is not run. Every answer carries \`X-Request-Id\`.`;

/**
 * The service's OpenAPI 3.1 description, built from the valibot schemas it validates with, so that
 * it cannot drift from what the service does. Served at GET /openapi.json.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the service that serves this document, whatever its address.
    servers: [{ url: '/', description: 'This service' }],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
    paths: {
      '/plants': {
        get: {
          tags: ['plants'],
          operationId: 'listPlants',
          security: NEEDS('read'),
          summary: 'Lists plants with their ids, ascending by id, a page at a time (HEAD: headers only).',
          description:
            'While more plants remain, `Link: </plants?limit=N&after=LAST>; rel="next"` gives the next page. ' +
            'Following it from the first page sees every plant stored for the whole walk exactly once, whatever ' +
            'is created or deleted meanwhile. A page holds at most `limit` plants and at most 1 MiB of body, ' +
            'but always one plant: a page of long plants may hold fewer than `limit` and still have a next ' +
            'one, which starts after its last plant. Unknown parameters are ignored.',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: 'How many plants at most, 1 to 1000.',
              schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            },
            {
              name: 'after',
              in: 'query',
              required: false,
              description:
                'Only plants with a greater id: the last id of the page before (plain decimal int64).',
              schema: toComponentSchema(PlantIdTextSchema),
            },
          ],
          responses: {
            '200': {
              description: 'A page of plants; each `id` an exact JSON integer.',
              headers: {
                Link: {
                  description:
                    'The next page, present while more plants remain: `</plants?limit=N&after=LAST>; rel="next"`.',
                  required: false,
                  schema: {
                    type: 'string',
                    pattern: '^</plants\\?limit=[0-9]+&after=-?[0-9]+>; rel="next"$',
                  },
                },
              },
              content: json({ type: 'array', items: ref('schemas', 'NewPlant') }),
            },
            '400': BAD_PARAMETER(),
            '401': UNAUTHORIZED(),
            '403': FORBIDDEN('read'),
            '503': STORAGE_UNAVAILABLE(),
          },
        },
        post: {
          tags: ['plants'],
          operationId: 'createPlant',
          security: NEEDS('write'),
          summary: 'Creates a new plant in the store.',
          description:
            'Creates the plant and answers it without its id. The same `id` sent again with the same `name` ' +
            'and `tag` is a retry: 200 again, nothing changes. After a 200 the plant is durably stored.',
          requestBody: { required: true, content: json(ref('schemas', 'NewPlant')) },
          responses: {
            '200': {
              description: 'The plant response, the created plant (or the stored one, for a retry).',
              content: json(ref('schemas', 'Plant')),
            },
            '400': errorResponse(BAD_REQUEST_DESCRIPTION, BAD_REQUEST_EXAMPLES),
            '401': UNAUTHORIZED(),
            '403': FORBIDDEN('write'),
            '408': errorResponse(
              'The request took too long to arrive; the connection is closed.',
              REQUEST_TIMEOUT_EXAMPLES,
            ),
            '409': errorResponse(
              'A plant with this `id` is stored already with another `name` or `tag`; it is unchanged.',
              CONFLICT_EXAMPLES,
            ),
            '413': errorResponse(
              'The body is larger than the configured limit (64 KiB by default).',
              PAYLOAD_TOO_LARGE_EXAMPLES,
            ),
            '415': errorResponse(
              'The body is not `application/json`, names a charset other than UTF-8, or has a `Content-Encoding` other than `identity` (bodies are never decompressed).',
              UNSUPPORTED_MEDIA_TYPE_EXAMPLES,
            ),
            '500': errorResponse(
              'A fault of the service; the message says nothing internal.',
              INTERNAL_ERROR_EXAMPLES,
            ),
            '503': STORAGE_UNAVAILABLE(),
          },
        },
      },
      '/plants/{id}': {
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description:
              "The plant's id, an int64 in plain decimal: digits with an optional leading `-`; no `+`, leading zeros, fraction or exponent.",
            schema: toComponentSchema(PlantIdTextSchema),
          },
        ],
        get: {
          tags: ['plants'],
          operationId: 'getPlant',
          security: NEEDS('read'),
          summary: 'Reads a plant by its id (HEAD: the same headers, no body).',
          responses: {
            '200': {
              description: 'The plant, without its id (as POST answers it).',
              content: json(ref('schemas', 'Plant')),
            },
            '400': BAD_PARAMETER(),
            '401': UNAUTHORIZED(),
            '403': FORBIDDEN('read'),
            '404': PLANT_NOT_FOUND(),
            '503': STORAGE_UNAVAILABLE(),
          },
        },
        delete: {
          tags: ['plants'],
          operationId: 'deletePlant',
          security: NEEDS('write'),
          summary: 'Deletes a plant; its id is then free for a plant with any content.',
          responses: {
            '204': { description: 'The plant was deleted.' },
            '400': BAD_PARAMETER(),
            '401': UNAUTHORIZED(),
            '403': FORBIDDEN('write'),
            '404': PLANT_NOT_FOUND(),
            '503': STORAGE_UNAVAILABLE(),
          },
        },
      },
      '/healthz': {
        get: {
          tags: ['monitoring'],
          operationId: 'health',
          summary: 'Whether the process is up (says nothing about storage).',
          security: NO_TOKEN,
          responses: {
            '200': { description: 'The process answers.', content: json(ref('schemas', 'Health')) },
          },
        },
      },
      '/readyz': {
        get: {
          tags: ['monitoring'],
          operationId: 'readiness',
          summary: 'Whether to send traffic here: storage answers and the service is not stopping.',
          security: NO_TOKEN,
          responses: {
            '200': { description: 'Ready.', content: json(ref('schemas', 'Readiness')) },
            '503': errorResponse('Storage does not answer, or the service is stopping.', NOT_READY_EXAMPLES, {
              'Retry-After': ref('headers', 'Retry-After'),
            }),
          },
        },
      },
      '/metrics': {
        get: {
          tags: ['monitoring'],
          operationId: 'metrics',
          summary:
            "The service's metrics, in Prometheus' text format, for operators. Same tokens as the API (a JWT needs the read scope).",
          security: NEEDS('read'),
          responses: {
            '200': {
              description: 'The metrics.',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            '401': UNAUTHORIZED(),
            '403': FORBIDDEN('read'),
            '503': errorResponse(
              "JWT only: the identity provider's keys were never loaded. Retry later.",
              KEYS_UNAVAILABLE_EXAMPLES,
              { 'Retry-After': ref('headers', 'Retry-After') },
            ),
          },
        },
      },
      '/openapi.json': {
        get: {
          tags: ['documentation'],
          operationId: 'openApiDocument',
          summary: 'This document.',
          security: NO_TOKEN,
          responses: {
            '200': {
              description:
                'The OpenAPI 3.1 description of the service; int64 bounds are exact JSON integers.',
              content: json({ type: 'object' }),
            },
          },
        },
      },
      '/docs': {
        get: {
          tags: ['documentation'],
          operationId: 'apiReference',
          summary: 'The API reference page for people, with a "try it out" for each operation.',
          description:
            'The page loads its scripts, styles and icon from `/docs/assets/`, served by the service itself ' +
            '(no CDN); they are part of the page, not operations of the interface.',
          security: NO_TOKEN,
          responses: {
            '200': { description: 'An HTML page.', content: { 'text/html': { schema: { type: 'string' } } } },
          },
        },
      },
    },
    // What the service sends, not what it answers (OpenAPI 3.1): the webhook on creation.
    webhooks: {
      plantCreated: {
        post: {
          tags: ['webhooks'],
          operationId: 'plantCreated',
          summary: 'Sent to each of WEBHOOK_URLS for every plant created, at least once.',
          description:
            'Signed with Standard Webhooks: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of ' +
            '`webhook-id.webhook-timestamp.body`, keyed by the WEBHOOK_SECRET (`whsec_` + base64); one signature per ' +
            'secret while rotating. Every copy of one event has the same `webhook-id`: deduplicate on it. Any 2xx ' +
            'delivers; anything else is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (`Retry-After` ' +
            'honoured on 429 and 503); 410 stops this URL for this event; redirects are not followed; 10 s timeout.',
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              required: true,
              description: 'The event: the same on every attempt and at every URL.',
              schema: { type: 'string' },
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              required: true,
              description: 'When this attempt was signed, in seconds since 1970 (reject ones far from now).',
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
            {
              name: 'webhook-signature',
              in: 'header',
              required: true,
              description: 'Space-separated `v1,<base64>` signatures.',
              schema: { type: 'string' },
            },
          ],
          requestBody: {
            required: true,
            description: 'The plant as created; `id` an exact int64.',
            content: json(ref('schemas', 'NewPlant')),
          },
          responses: {
            '2XX': { description: 'Delivered: no further attempt.' },
            '410': { description: 'Gone: no further attempt of this event at this URL.' },
            default: { description: 'Not delivered: tried again on the schedule, then kept as dead.' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Sent as `Authorization: Bearer <token>`: a static token configured on the service (API_TOKENS or ' +
            'API_TOKENS_FILE; it holds every scope), or, when JWT_ISSUER is set, a JWT access token of that ' +
            'OAuth 2.0 / OpenID Connect provider, whose `scope` (or `scp`) must hold the scope each operation ' +
            'names (`plants:read`, `plants:write` by default).',
        },
      },
      schemas: {
        NewPlant: newPlantSchema(),
        Plant: plantSchema(),
        Error: {
          ...toComponentSchema(ErrorBodySchema),
          description: 'The body of every failure.',
          examples: [{ error: 400, message: 'invalid plant: name is required' }],
        },
        Health: toComponentSchema(HealthBodySchema),
        Readiness: toComponentSchema(ReadinessBodySchema),
      },
      headers: {
        'WWW-Authenticate': {
          description:
            'The bearer challenge (RFC 6750): `Bearer realm="plant-store"`, with `, error="invalid_token"` when a token was sent but is not valid (and `error_description` naming the failed check for a JWT), `invalid_request` for two Authorization headers, `insufficient_scope` with `scope` for a 403.',
          required: true,
          schema: {
            type: 'string',
            pattern:
              '^Bearer realm="plant-store"(, error="(invalid_token|invalid_request|insufficient_scope)"(, error_description="[^"]*")?(, scope="[^"]*")?)?$',
          },
        },
        'Retry-After': {
          description: 'Seconds to wait before trying again.',
          required: true,
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
      },
      // The answers any request may get, outside the operations above (see the description).
      responses: {
        NotFound: errorResponse('Unknown path (paths match exactly). No token needed.', NOT_FOUND_EXAMPLES),
        MethodNotAllowed: errorResponse(
          'Known path, other method. No token needed.',
          METHOD_NOT_ALLOWED_EXAMPLES,
          { Allow: { description: 'The methods of the path.', required: true, schema: { type: 'string' } } },
        ),
        MalformedRequest: errorResponse(
          'The HTTP parser refused the request, and the connection is closed; or its head breaks RFC 9112: no `Host` in HTTP/1.1, two `Host` headers or one that is not `host[:port]`, a request target with a `#` fragment. Nothing was done.',
          MALFORMED_REQUEST_EXAMPLES,
        ),
        NotImplemented: errorResponse(
          'The body comes with a transfer coding other than `chunked` alone (bodies are never decoded); nothing was read or stored, and the connection is closed.',
          NOT_IMPLEMENTED_EXAMPLES,
        ),
        ServiceUnavailable: errorResponse(
          'The service is out of file descriptors for the moment (too many open connections or files): nothing was done. Retry later.',
          SERVICE_UNAVAILABLE_EXAMPLES,
          { 'Retry-After': ref('headers', 'Retry-After') },
        ),
        HttpVersionNotSupported: errorResponse(
          'The request line names an HTTP version other than 1.0 and 1.1; nothing was done, and the connection is closed.',
          VERSION_NOT_SUPPORTED_EXAMPLES,
        ),
        RequestTimeout: errorResponse(
          'The request took too long to arrive; the connection is closed.',
          REQUEST_TIMEOUT_EXAMPLES,
        ),
        RequestHeaderFieldsTooLarge: errorResponse(
          'The headers are over 16 KiB; the connection is closed.',
          HEADERS_TOO_LARGE_EXAMPLES,
        ),
        ExpectationFailed: errorResponse(
          'The request has an `Expect` header other than `100-continue`; nothing was done.',
          EXPECTATION_FAILED_EXAMPLES,
        ),
      },
    },
  };
}

/**
 * The bytes GET /openapi.json serves, and apps/api/openapi.json holds: pretty-printed, keys in the
 * builder's order (the same at every build), the int64 bounds as exact JSON integers.
 */
export function openApiDocumentText(): string {
  return stringifyExactJson(buildOpenApiDocument(), 2);
}
