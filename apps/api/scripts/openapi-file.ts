// The published OpenAPI document, committed beside the service that publishes it: clients are generated
// from this file rather than from the api's code, and a change to the API shows up in review as a diff
// of it. A test holds it to what GET /openapi.json serves (openApiDocumentText); `pnpm generate` at the root writes it again.
import { join } from 'node:path';

/** apps/api/openapi.json */
export const OPENAPI_FILE = join(import.meta.dirname, '..', 'openapi.json');
