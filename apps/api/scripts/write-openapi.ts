// `pnpm --filter @plant-store/api openapi:write`: writes apps/api/openapi.json from the document builder.
import { writeFileSync } from 'node:fs';
import { openApiDocumentText } from '../src/openapi/openapi-document.ts';
import { OPENAPI_FILE } from './openapi-file.ts';

writeFileSync(OPENAPI_FILE, openApiDocumentText());
console.log(`wrote ${OPENAPI_FILE}`);
