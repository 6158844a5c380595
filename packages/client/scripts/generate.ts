// `pnpm generate`: writes src/generated/openapi.ts from the committed OpenAPI document, apps/api/openapi.json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTypes } from './generate-types.ts';

const target = join(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts');
writeFileSync(target, await generateTypes());
console.log(`wrote ${target}`);
