// The document's components: the schemas of the bodies, the shared headers, the bearer scheme, and the
// answers any request may get outside the operations. Also how an answer becomes a Response object.
import { NewPlantObjectSchema } from '@plant-store/domain';
import * as v from 'valibot';
import { ALLOWED_HEADERS, PREFLIGHT_MAX_AGE_S } from '../http/middleware/cors.ts';
import {
  ErrorBodySchema,
  HealthBodySchema,
  PlantResponseSchema,
  ReadinessBodySchema,
} from '../operations/answer-bodies.ts';
import { failure, REQUEST_TIMEOUT, RETRY_AFTER, type SharedHeader } from '../operations/answers.ts';
import type { Answer, Content } from '../operations/operation.ts';
import { PlantMergePatchSchema, PlantReplacementSchema } from '../operations/plant-changes.ts';
import {
  EXPECTATION_FAILED_EXAMPLES,
  HEADERS_TOO_LARGE_EXAMPLES,
  MALFORMED_REQUEST_EXAMPLES,
  METHOD_NOT_ALLOWED_EXAMPLES,
  NOT_FOUND_EXAMPLES,
  NOT_IMPLEMENTED_EXAMPLES,
  SERVICE_UNAVAILABLE_EXAMPLES,
  VERSION_NOT_SUPPORTED_EXAMPLES,
} from '../operations/request-error-examples.ts';
import { toComponentSchema, toReferencingSchema } from './published-schemas.ts';

type JsonObject = Record<string, unknown>;

/** The bodies published as components.schemas, by name: wherever a body holds one, it refers to it. */
const SCHEMAS: Readonly<Record<string, v.GenericSchema>> = {
  NewPlant: NewPlantObjectSchema,
  Plant: PlantResponseSchema,
  PlantReplacement: PlantReplacementSchema,
  PlantMergePatch: PlantMergePatchSchema,
  Error: ErrorBodySchema,
  Health: HealthBodySchema,
  Readiness: ReadinessBodySchema,
};

/** A body's schema in the document: a valibot schema converted, its components referred to. */
export function schemaObject(schema: Content['schema']): JsonObject {
  return v.isOfKind('schema', schema as v.GenericSchema)
    ? toReferencingSchema(schema as v.GenericSchema, SCHEMAS)
    : { ...schema };
}

/** An answer as an OpenAPI Response object. */
export function responseObject({ description, headers, body }: Answer): JsonObject {
  if (body === undefined) return { description, ...(headers === undefined ? {} : { headers }) };
  const { mediaType = 'application/json', schema, examples } = body;
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: {
      [mediaType]: { schema: schemaObject(schema), ...(examples === undefined ? {} : { examples }) },
    },
  };
}

type PropertySchema = JsonObject & { 'x-refused-when'?: string[] };

/** Puts a property's description first, followed by the service's refinements of it, if any. */
function describeProperty(schema: JsonObject, name: string, description: string): void {
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

function describeNewPlant(schema: JsonObject): JsonObject {
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

function describePlant(schema: JsonObject): JsonObject {
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

const SAME_ID =
  "Allowed when it is the path's id (so that a NewPlant as read can be sent back); any other id is refused.";

function describeReplacement(schema: JsonObject): JsonObject {
  describeProperty(schema, 'id', SAME_ID);
  describeProperty(schema, 'name', 'The new name of the plant.');
  describeProperty(schema, 'tag', 'The new tag; left out, the plant has no tag any more.');
  return {
    ...schema,
    description: "A plant's new content (PUT): a Plant. Other members are ignored.",
    examples: [{ name: 'Monstera deliciosa', tag: 'aroid' }],
  };
}

function describeMergePatch(schema: JsonObject): JsonObject {
  describeProperty(schema, 'id', SAME_ID);
  describeProperty(
    schema,
    'name',
    'The new name; left out, the name stays (`null` is refused: a plant keeps a name).',
  );
  describeProperty(schema, 'tag', 'The new tag, or `null` to remove it; left out, the tag stays.');
  return {
    ...schema,
    description:
      'A JSON merge patch (RFC 7396) of a plant (PATCH, `application/merge-patch+json`): the members sent change, the others stay. Other members are ignored.',
    examples: [{ tag: 'aroid' }, { tag: null }],
  };
}

/** What the components.schemas say beyond their valibot schemas. */
const DESCRIPTIONS: Readonly<Record<string, (schema: JsonObject) => JsonObject>> = {
  NewPlant: describeNewPlant,
  Plant: describePlant,
  PlantReplacement: describeReplacement,
  PlantMergePatch: describeMergePatch,
  Error: (schema) => ({
    ...schema,
    description: 'The body of every failure.',
    examples: [{ error: 400, message: 'invalid plant: name is required' }],
  }),
};

const HEADERS: Readonly<Record<SharedHeader, JsonObject>> = {
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
  ETag: {
    description:
      "The plant's strong entity-tag (RFC 9110): derived from its content alone (`name` and `tag`), so the same content has the same ETag on every replica and after every restart, and another content another one. Send it back in `If-Match` to change the plant only as you read it, or in `If-None-Match` to be told it is unchanged (304).",
    required: true,
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{43}"$' },
  },
};

// The answers any request may get, outside the operations (see the document's description).
const RESPONSES: Readonly<Record<string, Answer>> = {
  NotFound: failure('Unknown path (paths match exactly). No token needed.', NOT_FOUND_EXAMPLES),
  MethodNotAllowed: failure('Known path, other method. No token needed.', METHOD_NOT_ALLOWED_EXAMPLES, {
    Allow: { description: 'The methods of the path.', required: true, schema: { type: 'string' } },
  }),
  MalformedRequest: failure(
    'The HTTP parser refused the request, and the connection is closed; or its head breaks RFC 9112: no `Host` in HTTP/1.1, two `Host` headers or one that is not `host[:port]`, a request target with a `#` fragment. Nothing was done.',
    MALFORMED_REQUEST_EXAMPLES,
  ),
  NotImplemented: failure(
    'The body comes with a transfer coding other than `chunked` alone (bodies are never decoded); nothing was read or stored, and the connection is closed.',
    NOT_IMPLEMENTED_EXAMPLES,
  ),
  ServiceUnavailable: failure(
    'The service is out of file descriptors for the moment (too many open connections or files): nothing was done. Retry later.',
    SERVICE_UNAVAILABLE_EXAMPLES,
    RETRY_AFTER,
  ),
  HttpVersionNotSupported: failure(
    'The request line names an HTTP version other than 1.0 and 1.1; nothing was done, and the connection is closed.',
    VERSION_NOT_SUPPORTED_EXAMPLES,
  ),
  RequestTimeout: REQUEST_TIMEOUT,
  RequestHeaderFieldsTooLarge: failure(
    'The headers are over 16 KiB; the connection is closed.',
    HEADERS_TOO_LARGE_EXAMPLES,
  ),
  ExpectationFailed: failure(
    'The request has an `Expect` header other than `100-continue`; nothing was done.',
    EXPECTATION_FAILED_EXAMPLES,
  ),
  CorsPreflight: {
    description:
      'With `CORS_ORIGINS` set: a preflight (`OPTIONS` with `Access-Control-Request-Method`) from a listed origin, on a path of the service. No token needed, no body, never `Access-Control-Allow-Credentials`.',
    headers: {
      'Access-Control-Allow-Origin': {
        description: 'The origin of the request, or `*` when CORS_ORIGINS is `*`.',
        required: true,
        schema: { type: 'string' },
      },
      'Access-Control-Allow-Methods': {
        description: 'The methods of the path, as `Allow` names them.',
        required: true,
        schema: { type: 'string' },
      },
      'Access-Control-Allow-Headers': {
        description: `The request headers a page may send: ${ALLOWED_HEADERS.map((name) => `\`${name}\``).join(', ')}.`,
        required: true,
        schema: { type: 'string' },
      },
      'Access-Control-Max-Age': {
        description: `Seconds a browser may keep this answer: ${PREFLIGHT_MAX_AGE_S}.`,
        required: true,
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
    },
  },
};

export function components(): Record<string, JsonObject> {
  return {
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
    schemas: Object.fromEntries(
      Object.entries(SCHEMAS).map(([name, schema]) => {
        const describe = DESCRIPTIONS[name] ?? ((json: JsonObject) => json);
        return [name, describe(toComponentSchema(schema))];
      }),
    ),
    headers: HEADERS,
    responses: Object.fromEntries(
      Object.entries(RESPONSES).map(([name, answer]) => [name, responseObject(answer)]),
    ),
  };
}
