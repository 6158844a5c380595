// The published OpenAPI 3.1 document, made from the table of operations (operations/table.ts), so
// that it says what the router serves; served at GET /openapi.json and committed as apps/api/openapi.json.
import { stringifyExactJson } from '@plant-store/domain';
import { DEFAULT_SCOPES } from '../auth/credentials.ts';
import { EXPOSED_HEADERS } from '../http/middleware/cors.ts';
import { answersOf } from '../operations/answers.ts';
import type { Operation, Parameter, Parameters, RequestHeader } from '../operations/operation.ts';
import { OPERATIONS, TAGS } from '../operations/table.ts';
import { components, responseObject, schemaObject } from './components.ts';
import { toParameterSchema } from './published-schemas.ts';
import { webhooks } from './webhooks.ts';

/** An OpenAPI 3.1 document as plain data; big integers (the int64 bounds) are bigints. */
export type OpenApiDocument = Record<string, unknown> & {
  readonly openapi: '3.1.0';
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
};

// Operations first: Swagger UI shows the description above them. The HTTP rules that hold for any
// request come last, under a heading of their own.
const DESCRIPTION = `Keeps plants: creates one (\`POST /plants\`), reads it (\`GET /plants/{id}\`), lists them a page at a time, by
ascending id and optionally by tag (\`GET /plants\`), replaces or changes it (\`PUT\`, \`PATCH /plants/{id}\`) and
deletes it (\`DELETE /plants/{id}\`), with a bearer token: a static token may do everything; a JWT access token
needs \`${DEFAULT_SCOPES.read}\` to read and list, \`${DEFAULT_SCOPES.write}\` to create, change and delete.

Every failure answers \`application/json\` \`{"error": <HTTP status>, "message": "..."}\`. The checks run in this
order: credential (401), scope (403), parameters (400), media type (415), size (413), JSON and fields (400), then
the plant: precondition (412), absent (404), duplicate id (409).

Every answer that carries one plant has its strong \`ETag\`, derived from its content alone: send it back in
\`If-Match\` to change or delete the plant only as you read it (412 otherwise), or in \`If-None-Match\` to read it
only when it changed (304 otherwise).

## HTTP details

Beyond the operations below: an unknown path answers 404, a known path with another method 405 (with
\`Allow\`), both with the Error body and without a token. A request that the HTTP parser refuses answers 400,
431 (headers too large) or 408 (too slow), with the Error body, and the connection is closed, after the answers
to the requests sent before it on that connection. So does an HTTP/1.1 request without \`Host\` (400), \`CONNECT\`
(400), and an \`Expect\` other than \`100-continue\` (417). HTTP/1.1 framing is read as RFC 9112 says: two \`Host\`
headers or one that is not \`host[:port]\`, or a request target with a \`#\` fragment, 400; a transfer coding other
than \`chunked\` alone, 501 (nothing is read or stored); an HTTP version other than 1.0 and 1.1, 505. While the
service is out of file descriptors, a request that needs one answers 503 with \`Retry-After\`. With \`Expect: 100-continue\`, \`100 Continue\` is sent
only once the credential, media type and declared size are accepted. A request pipelined behind an answer that
closes the connection is not run. Every answer carries \`X-Request-Id\`.

Browsers (CORS): off unless \`CORS_ORIGINS\` is set. Then every answer to a request whose \`Origin\` is listed, failures
included, carries \`Access-Control-Allow-Origin\` (that origin, or \`*\`), \`Vary: Origin\` and
\`Access-Control-Expose-Headers\` (${EXPOSED_HEADERS.map((name) => `\`${name}\``).join(', ')}); a
preflight (\`OPTIONS\` with \`Access-Control-Request-Method\`) from a listed origin on a known path answers 204
without a token (\`CorsPreflight\`); any other \`OPTIONS\` on a known path answers 405.`;

type JsonObject = Record<string, unknown>;

function parameterObjects(parameters: Parameters | undefined, where: 'path' | 'query'): JsonObject[] {
  return Object.entries(parameters ?? {}).map(([name, parameter]: [string, Parameter]) => ({
    name,
    in: where,
    required: where === 'path',
    description: parameter.description,
    schema: {
      ...toParameterSchema(parameter.schema),
      ...(parameter.default === undefined ? {} : { default: parameter.default }),
    },
  }));
}

/** The request headers an operation reads, as header parameters: never required. */
function headerObjects(headers: readonly RequestHeader[] | undefined): JsonObject[] {
  return (headers ?? []).map(({ name, description, schema }) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema,
  }));
}

/** The security requirement of an operation: the bearer token with the scope a JWT needs, or none. */
function securityOf({ scope }: Operation): JsonObject[] {
  return scope === 'none' ? [] : [{ bearerAuth: [DEFAULT_SCOPES[scope]] }];
}

function operationObject(operation: Operation): JsonObject {
  const { description, body } = operation;
  const parameters = [...parameterObjects(operation.query, 'query'), ...headerObjects(operation.headers)];
  return {
    tags: operation.tags,
    operationId: operation.operationId,
    security: securityOf(operation),
    summary: operation.summary,
    ...(description === undefined ? {} : { description }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: { [body.mediaType]: { schema: schemaObject(body.schema) } },
          },
        }),
    responses: Object.fromEntries(
      Object.entries(answersOf(operation)).map(([status, answer]) => [status, responseObject(answer)]),
    ),
  };
}

/**
 * The paths, in the table's order, each with its operations. A path's parameters are written once, on the
 * path: every operation on it takes the same ones.
 */
function pathsOf(operations: readonly Operation[]): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  const first = new Map<string, Operation>();
  for (const operation of operations) {
    const sibling = first.get(operation.path);
    if (sibling === undefined) {
      first.set(operation.path, operation);
      const parameters = parameterObjects(operation.params, 'path');
      paths[operation.path] = parameters.length === 0 ? {} : { parameters };
    } else if (!sameParameters(sibling.params, operation.params)) {
      throw new Error(`the operations on ${operation.path} must take the same path parameters`);
    }
    (paths[operation.path] as JsonObject)[operation.method] = operationObject(operation);
  }
  return paths;
}

function sameParameters(a: Parameters | undefined, b: Parameters | undefined): boolean {
  const names = Object.keys(a ?? {});
  return names.length === Object.keys(b ?? {}).length && names.every((name) => a?.[name] === b?.[name]);
}

/** The service's OpenAPI 3.1 description. Served at GET /openapi.json. */
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
    paths: pathsOf(OPERATIONS.filter((operation) => operation.hidden !== true)),
    webhooks: webhooks(),
    components: components(),
  };
}

/**
 * The bytes GET /openapi.json serves, and apps/api/openapi.json holds: pretty-printed, keys in the
 * builder's order (the same at every build), the int64 bounds as exact JSON integers.
 */
export function openApiDocumentText(): string {
  return stringifyExactJson(buildOpenApiDocument(), 2);
}
