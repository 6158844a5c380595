import { stringifyExactJson } from '@plant-store/domain';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document.ts';
import { componentSchemaValidator } from './component-schemas.ts';

/** One HTTP answer as a test received it, and the request it answered (when it could be read). */
export interface ReceivedResponse {
  readonly method: string | undefined;
  /** The request target; a query string is ignored. */
  readonly path: string | undefined;
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

type JsonObject = Record<string, unknown>;
interface ResponseObject {
  readonly content?: Record<string, { readonly schema?: unknown }>;
  readonly headers?: Record<string, JsonObject>;
}

// The document as GET /openapi.json serves it (a test checks the two are the same text).
const document = JSON.parse(stringifyExactJson(buildOpenApiDocument())) as JsonObject & {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: { responses: Record<string, ResponseObject>; headers: Record<string, JsonObject> };
};

const validatorOf = componentSchemaValidator(document, 'https://plant-store.invalid/openapi.json');

/** The documented path that a request path is, as a template (`/plants/{id}`). */
function documentedPath(path: string): string | undefined {
  for (const template of Object.keys(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`);
    if (pattern.test(path)) return template;
  }
  return undefined;
}

// The reference page's own scripts, styles and icon (see src/operations/documentation.ts): part of GET /docs, which
// describes them, and left out of the document's operations on purpose.
const DOCS_ASSET = /^\/docs\/assets\/[^/]+$/;
const DOCS_ASSET_ANSWER: ResponseObject = {
  content: { 'text/javascript': {}, 'text/css': {}, 'image/png': {} },
};

// Answers that any request may get, whatever its path (see the document's description).
const ANY_REQUEST: Readonly<Record<number, string>> = {
  400: 'MalformedRequest',
  408: 'RequestTimeout',
  417: 'ExpectationFailed',
  431: 'RequestHeaderFieldsTooLarge',
  501: 'NotImplemented',
  503: 'ServiceUnavailable',
  505: 'HttpVersionNotSupported',
};

interface Expected {
  readonly response: ResponseObject;
}

/** Which documented response an answer must be, or why none can be. */
function expectedResponse(received: ReceivedResponse): Expected | string {
  const generic = (name: string): Expected => ({
    response: document.components.responses[name] as ResponseObject,
  });
  const path = received.path?.split('?')[0];
  const template = path === undefined ? undefined : documentedPath(path);
  if (template === undefined) {
    if (received.status === 200 && DOCS_ASSET.test(path ?? '') && /^(GET|HEAD)$/i.test(received.method ?? ''))
      return { response: DOCS_ASSET_ANSWER };
    if (received.status === 404) return generic('NotFound');
    const name = ANY_REQUEST[received.status];
    if (name !== undefined) return generic(name);
    return `${received.method} ${received.path} answered ${received.status}, but its path is not documented`;
  }
  const method = (received.method ?? '').toLowerCase();
  const operation = document.paths[template]?.[method === 'head' ? 'get' : method];
  if (operation === undefined) {
    if (received.status === 405) return generic('MethodNotAllowed');
    // With CORS_ORIGINS set, a preflight on any documented path (see the document's description).
    if (method === 'options' && received.status === 204) return generic('CorsPreflight');
    const name = ANY_REQUEST[received.status];
    if (name !== undefined) return generic(name);
    return `${received.method} ${template} answered ${received.status}, but the method is not documented`;
  }
  const documented = operation.responses[String(received.status)];
  if (documented !== undefined) return { response: documented };
  const name = ANY_REQUEST[received.status];
  if (name !== undefined) return generic(name);
  return `${received.method} ${template} answered ${received.status}, which is not documented for it`;
}

const mediaTypeOf = (header: string | undefined) => header?.split(';')[0]?.trim().toLowerCase();

/** What is wrong with an answer according to the published document; empty when nothing is. */
export function responseViolations(received: ReceivedResponse): string[] {
  const expected = expectedResponse(received);
  if (typeof expected === 'string') return [expected];
  const where = `${received.method} ${received.path} ${received.status}`;
  const problems: string[] = [];
  for (const [name, header] of Object.entries(expected.response.headers ?? {})) {
    const value = received.headers[name.toLowerCase()];
    const schema = (header as { schema?: unknown; $ref?: string }).$ref
      ? document.components.headers[name]
      : header;
    if (value === undefined) {
      if ((schema as { required?: boolean } | undefined)?.required)
        problems.push(`${where}: no ${name} header`);
      continue;
    }
    const pattern = (schema as { schema?: { pattern?: string } } | undefined)?.schema?.pattern;
    if (pattern !== undefined && !new RegExp(pattern).test(value))
      problems.push(`${where}: header ${name} ${JSON.stringify(value)} does not match ${pattern}`);
  }
  const content = expected.response.content;
  if (content === undefined) return problems;
  const mediaType = mediaTypeOf(received.headers['content-type']);
  if (mediaType === undefined || !(mediaType in content)) {
    problems.push(
      `${where}: content type ${received.headers['content-type']} is not one of ${Object.keys(content)}`,
    );
    return problems;
  }
  // A HEAD answer carries the headers of the GET answer, and no body.
  if (received.method?.toUpperCase() === 'HEAD' || mediaType !== 'application/json') return problems;
  let body: unknown;
  try {
    body = JSON.parse(received.body);
  } catch {
    return [...problems, `${where}: the body is not JSON: ${received.body.slice(0, 200)}`];
  }
  const validate = validatorOf(content[mediaType]?.schema ?? {});
  if (!validate(body))
    problems.push(
      `${where}: the body ${received.body.slice(0, 200)} does not match: ${JSON.stringify(validate.errors)}`,
    );
  return problems;
}

/** Every answer the HTTP tests received that breaks the document, since the last take. */
const violations: string[] = [];
const pending = new Set<Promise<void>>();
let checked = 0;

/** Checks an answer against the published document; problems are reported by takeViolations(). */
export function checkResponse(received: ReceivedResponse | Promise<ReceivedResponse | undefined>): void {
  const check = Promise.resolve(received)
    .then((answer) => {
      if (answer === undefined) return;
      violations.push(...responseViolations(answer));
      checked += 1;
    })
    .catch(() => {
      // The body never arrived (the connection went away): nothing to check.
    })
    .finally(() => pending.delete(check));
  pending.add(check);
}

/** How many answers were checked so far, once the checks under way are done. */
export async function checkedCount(): Promise<number> {
  await Promise.all(pending);
  return checked;
}

/** Waits for the checks under way, then hands over the problems found and forgets them. */
export async function takeViolations(): Promise<string[]> {
  await Promise.all(pending);
  return violations.splice(0);
}

/** Checks the first answer of a raw exchange, with the method and path read from the raw request. */
export function checkRawExchange(request: string | Uint8Array, response: string): void {
  if (response === '') return; // the server closed without answering
  const requestLine = Buffer.from(request).toString('latin1').split('\r\n', 1)[0] ?? '';
  const [, method, path] = /^([A-Z]+) (\/\S*) HTTP\/1\.[01]$/.exec(requestLine) ?? [];
  const [head = '', ...rest] = response.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
  checkResponse({ method, path, status, headers, body: rest.join('\r\n\r\n') });
}

/** The published document as JSON.parse reads it (int64 bounds as the nearest doubles). */
export function publishedDocument(): JsonObject {
  return JSON.parse(stringifyExactJson(buildOpenApiDocument())) as JsonObject;
}
