// The published OpenAPI document, committed beside the service that publishes it: clients are generated
// from this file rather than from the api's code, and a change to the API shows up in review as a diff
// of it. A test holds it to what GET /openapi.json serves; `pnpm generate` at the root writes it again.
import { join } from 'node:path';
import { buildOpenApiDocument, stringifyExactJson } from '../src/openapi/openapi-document.ts';

/** apps/api/openapi.json */
export const OPENAPI_FILE = join(import.meta.dirname, '..', 'openapi.json');

/**
 * The file's text: the bytes GET /openapi.json serves. Pretty-printed, keys in the builder's order
 * (the same at every build), the int64 bounds as exact JSON integers.
 */
export function openApiFileText(): string {
  return stringifyExactJson(buildOpenApiDocument(), 2);
}
