import { existsSync, readFileSync } from 'node:fs';
import {
  INT64_MAX,
  INT64_MIN,
  InvalidPlantError,
  parseNewPlant,
  stringifyExactJson,
} from '@plant-store/domain';
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../scripts/openapi-file.ts';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.ts';
import { DOCS_CONTENT_SECURITY_POLICY } from '../src/operations/documentation.ts';
import { parseJsonWithBigInts } from './support/exact-json.ts';
import { expectErrorResponse } from './support/expect-error.ts';
import { checkedCount, responseViolations } from './support/openapi-validator.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents, read by path in the assertions.
type JsonObject = Record<string, any>;

const parseWithBigInts = (text: string) => parseJsonWithBigInts(text) as JsonObject;

let server: TestServer;
let served: string;
let document: JsonObject;
beforeAll(async () => {
  server = await startTestServer(openMemoryPlantStorage());
  served = await (await fetch(`${server.url}/openapi.json`)).text();
  document = parseWithBigInts(served);
});
afterAll(async () => {
  await server?.stop();
});

describe('GET /openapi.json', () => {
  it('when it is asked without a token, then it answers 200 with the JSON the code builds', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe(stringifyExactJson(buildOpenApiDocument(), 2));
  });

  it('when the committed apps/api/openapi.json is read, then it is what the service serves, byte for byte', () => {
    expect(
      existsSync(OPENAPI_FILE) ? readFileSync(OPENAPI_FILE, 'utf8') : 'no file',
      'apps/api/openapi.json differs from what GET /openapi.json serves: run `pnpm generate` at the root ' +
        '(it writes the document, then the client types from it), and commit both',
    ).toBe(served);
  });

  it('when the int64 bounds are written, then their digits are exact, not rounded doubles', () => {
    expect(served).toContain('"minimum": -9223372036854775808');
    expect(served).toContain('"maximum": 9223372036854775807');
    expect(served).not.toContain('9223372036854776000');
    const id = document.components.schemas.NewPlant.properties.id;
    expect(id).toEqual({
      type: 'integer',
      format: 'int64',
      minimum: INT64_MIN,
      maximum: INT64_MAX,
      description: expect.any(String),
    });
  });

  it('when a maintained OpenAPI validator reads it, then it is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(JSON.parse(served));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('when it is read, then it says OpenAPI 3.1.0, version 1.0.0, MIT, and bearer auth for the whole interface', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({
      title: 'Plant Store',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
    });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it("when its description is read (the top of /docs), then it begins with the operations, the checks' order and ETags, and the HTTP rules come after, under HTTP details", () => {
    const description: string = document.info.description;
    const [operations = '', details = ''] = description.split('\n## HTTP details\n');
    expect(details, 'a section "## HTTP details" after the rest').not.toBe('');
    for (const operation of [
      'POST /plants',
      'GET /plants/{id}',
      'GET /plants',
      'PATCH /plants/{id}',
      'DELETE /plants/{id}',
    ])
      expect(operations).toContain(operation);
    expect(operations).toMatch(/The checks run in this\s+order: credential \(401\)/);
    expect(operations).toContain('ETag');
    for (const rule of ['RFC 9112', 'Expect', 'pipelined', 'CORS_ORIGINS', '431', '505'])
      expect({ rule, inOperations: operations.includes(rule), inDetails: details.includes(rule) }).toEqual({
        rule,
        inOperations: false,
        inDetails: true,
      });
  });

  it('when POST /plants is read, then it lists every status the service answers, each failure with the Error schema', () => {
    const operation = document.paths['/plants'].post;
    // The bearer token, with the scope a JWT access token needs to create.
    expect(operation.security).toEqual([{ bearerAuth: ['plants:write'] }]);
    expect(operation.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
    });
    const statuses = Object.keys(operation.responses);
    expect(statuses).toEqual(
      expect.arrayContaining(['200', '400', '401', '409', '413', '415', '500', '503']),
    );
    expect(operation.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Plant',
    });
    for (const status of statuses.filter((s) => s !== '200'))
      expect(operation.responses[status].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    expect(operation.responses['401'].headers['WWW-Authenticate']).toEqual({
      $ref: '#/components/headers/WWW-Authenticate',
    });
    expect(operation.responses['503'].headers['Retry-After']).toBeDefined();
  });

  it('when the operations on one plant are read, then PUT takes a Plant and PATCH a merge patch, both under If-Match with 412; GET has If-None-Match and 304; each plant answer has an ETag', () => {
    const { get, put, patch, delete: remove } = document.paths['/plants/{id}'];
    const headerParameters = (operation: JsonObject) =>
      operation.parameters
        .filter((parameter: JsonObject) => parameter.in === 'header')
        .map((parameter: JsonObject) => [parameter.name, parameter.required]);
    expect(headerParameters(get)).toEqual([['If-None-Match', false]]);
    for (const operation of [put, patch, remove]) {
      expect(headerParameters(operation)).toEqual([['If-Match', false]]);
      expect(operation.security).toEqual([{ bearerAuth: ['plants:write'] }]);
      expect(operation.responses['412'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(put.requestBody.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/PlantReplacement' } },
    });
    expect(patch.requestBody.content).toEqual({
      'application/merge-patch+json': { schema: { $ref: '#/components/schemas/PlantMergePatch' } },
    });
    expect(patch.responses['415'].headers['Accept-Patch'].schema.pattern).toBe(
      '^application/merge-patch\\+json$',
    );
    expect(get.responses['304']).not.toHaveProperty('content');
    for (const answer of [
      get.responses['200'],
      get.responses['304'],
      put.responses['200'],
      patch.responses['200'],
      document.paths['/plants'].post.responses['200'],
    ])
      expect(answer.headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    expect(document.components.headers.ETag.schema.pattern).toBe('^"[A-Za-z0-9_-]{43}"$');
    for (const operation of [put, patch])
      expect(Object.keys(operation.responses)).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '408',
        '412',
        '413',
        '415',
        '503',
      ]);
  });

  it('when GET /plants is read, then it takes tag, and its Link pattern keeps it', () => {
    const { parameters, responses } = document.paths['/plants'].get;
    expect(parameters.map((parameter: JsonObject) => parameter.name)).toEqual(['limit', 'after', 'tag']);
    const link = new RegExp(responses['200'].headers.Link.schema.pattern);
    expect(link.test('</plants?limit=2&after=-7&tag=caf%C3%A9%20%2B%26>; rel="next"')).toBe(true);
    expect(link.test('</plants?limit=2&after=7&tag=>; rel="next"')).toBe(true);
    expect(link.test('</plants?limit=2&after=7&tag=a>b>; rel="next"')).toBe(false);
  });

  it('when the operations are read, then each is listed under a tag the document describes: plants, monitoring, documentation, webhooks', () => {
    expect(document.tags.map((tag: JsonObject) => tag.name)).toEqual([
      'plants',
      'monitoring',
      'documentation',
      'webhooks',
    ]);
    for (const tag of document.tags) expect(tag.description, tag.name).toEqual(expect.any(String));
    const tagsByOperation = Object.fromEntries(
      [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((operations) =>
        Object.values(operations as JsonObject).map((operation: JsonObject) => [
          operation.operationId,
          operation.tags,
        ]),
      ),
    );
    expect(tagsByOperation).toEqual({
      listPlants: ['plants'],
      createPlant: ['plants'],
      getPlant: ['plants'],
      replacePlant: ['plants'],
      patchPlant: ['plants'],
      deletePlant: ['plants'],
      health: ['monitoring'],
      readiness: ['monitoring'],
      metrics: ['monitoring'],
      openApiDocument: ['documentation'],
      apiReference: ['documentation'],
      plantCreated: ['webhooks'],
    });
  });

  it("when the webhook is read, then it is the NewPlant with Standard Webhooks' three headers", () => {
    const { post } = document.webhooks.plantCreated;
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NewPlant',
    });
    expect(
      post.parameters.map((parameter: JsonObject) => [parameter.name, parameter.in, parameter.required]),
    ).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
    ]);
    expect(Object.keys(post.responses).sort()).toEqual(['2XX', '410', 'default']);
  });

  it("when the paths are read, then the reference page's assets are not listed as an operation, though GET /docs says where they are", () => {
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/docs/'))).toEqual([]);
    expect(document.paths['/docs'].get.description).toContain('/docs/assets/');
  });

  it('when the 400 of POST /plants is read, then it says what a 400 means here, not "Unexpected error"', () => {
    const { description } = document.paths['/plants'].post.responses['400'];
    expect(description).not.toMatch(/unexpected/i);
    for (const cause of [
      'not valid UTF-8',
      'not exactly one JSON value',
      'not a NewPlant',
      'outside int64',
      'NUL',
    ])
      expect(description).toContain(cause);
  });

  it('when the health endpoints are read, then they need no token', () => {
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.paths['/readyz'].get.security).toEqual([]);
    expect(Object.keys(document.paths['/readyz'].get.responses)).toEqual(['200', '503']);
    expect(document.paths['/openapi.json'].get.security).toEqual([]);
    expect(document.paths['/docs'].get.security).toEqual([]);
  });

  it('when NewPlant is read, then unknown fields stay allowed, as the service ignores them', () => {
    const schema = document.components.schemas.NewPlant;
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['id', 'name']);
    expect(schema).not.toHaveProperty('additionalProperties');
    expect(schema).not.toHaveProperty('unevaluatedProperties');
  });

  it.each([
    ['the NUL character', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800'],
  ])(
    'when a name holds %s, then the 400 message is one of the refusals the document lists',
    (_label, name) => {
      const refusals: string[] = document.components.schemas.NewPlant.properties.name['x-refused-when'];
      let error: unknown;
      try {
        parseNewPlant({ id: 1n, name });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InvalidPlantError);
      expect(refusals).toContain((error as InvalidPlantError).issues[0]?.problem);
      expect(document.components.schemas.NewPlant.properties.name.description).toContain(
        (error as InvalidPlantError).issues[0]?.problem,
      );
    },
  );

  it('when the same document is built twice, then it is the same: nothing in it depends on the run', () => {
    expect(stringifyExactJson(buildOpenApiDocument())).toBe(stringifyExactJson(buildOpenApiDocument()));
  });
});

describe('GET /docs and its assets', () => {
  it('when the page is asked without a token, then it is HTML with a strict Content-Security-Policy', async () => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>/);
  });

  it.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['docs-page.js', 'text/javascript; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
  ])('when the asset %s is asked, then it is served from the package, as %s', async (file, type) => {
    const response = await fetch(`${server.url}/docs/assets/${file}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  it.each(['index.js', '..%2Fpackage.json', 'swagger-ui.js.map', '__proto__'])(
    'when an unknown asset %s is asked, then it answers a JSON 404',
    async (file) => {
      await expectErrorResponse(await fetch(`${server.url}/docs/assets/${file}`), 404);
    },
  );
});

describe('the response validation the HTTP tests run', () => {
  const plantsAnswer = {
    method: 'POST',
    path: '/plants',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      etag: '"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"',
    },
  };

  it('when a test receives an answer from the service, then the answer is checked', async () => {
    const before = await checkedCount();
    await fetch(`${server.url}/healthz`);
    expect(await checkedCount()).toBe(before + 1);
  });

  it('when answers match the document, then it finds nothing wrong', () => {
    expect(responseViolations({ ...plantsAnswer, status: 200, body: '{"name":"a","tag":""}' })).toEqual([]);
    expect(responseViolations({ ...plantsAnswer, status: 409, body: '{"error":409,"message":"x"}' })).toEqual(
      [],
    );
    expect(
      responseViolations({
        ...plantsAnswer,
        method: 'PUT',
        status: 405,
        headers: { ...plantsAnswer.headers, allow: 'HEAD, GET, POST' },
        body: '{"error":405,"message":"x"}',
      }),
    ).toEqual([]);
    expect(
      responseViolations({
        ...plantsAnswer,
        path: '/nowhere',
        status: 404,
        body: '{"error":404,"message":"x"}',
      }),
    ).toEqual([]);
  });

  it.each([
    ['an undocumented status', { status: 418, body: '{"error":418,"message":"x"}' }, /not documented/],
    ['a 200 without a name', { status: 200, body: '{"tag":"a"}' }, /does not match/],
    ['a 200 whose name is a number', { status: 200, body: '{"name":1}' }, /does not match/],
    ['an Error without message', { status: 400, body: '{"error":400}' }, /does not match/],
    [
      'a 401 without WWW-Authenticate',
      { status: 401, body: '{"error":401,"message":"x"}' },
      /no WWW-Authenticate/,
    ],
    [
      'a 200 without ETag',
      { status: 200, body: '{"name":"a"}', headers: { 'content-type': 'application/json' } },
      /no ETag/,
    ],
    [
      'a weak ETag',
      {
        status: 200,
        body: '{"name":"a"}',
        headers: {
          'content-type': 'application/json',
          etag: 'W/"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"',
        },
      },
      /header ETag .* does not match/,
    ],
    ['a body that is not JSON', { status: 400, body: 'oops' }, /not JSON/],
    [
      'another content type',
      { status: 200, body: '{"name":"a"}', headers: { 'content-type': 'text/plain' } },
      /content type/,
    ],
  ])('when an answer has %s, then it says so', (_label, answer, problem) => {
    const violations = responseViolations({ ...plantsAnswer, ...answer });
    expect(violations.join('\n')).toMatch(problem);
  });

  it('when a path is not documented, then only a 404 or a malformed-request answer fits', () => {
    expect(responseViolations({ ...plantsAnswer, path: '/secret', status: 200, body: '{}' })[0]).toMatch(
      /path is not documented/,
    );
  });
});
