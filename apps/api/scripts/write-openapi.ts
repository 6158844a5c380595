// `pnpm --filter @plant-store/api openapi:write`: writes apps/api/openapi.json from the document builder.
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, openApiFileText } from './openapi-file.ts';

writeFileSync(OPENAPI_FILE, openApiFileText());
console.log(`wrote ${OPENAPI_FILE}`);
