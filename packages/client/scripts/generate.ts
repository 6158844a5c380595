// `pnpm generate`: writes src/generated/openapi.ts from the api's OpenAPI document.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTypes } from './generate-types.ts';

const target = join(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts');
writeFileSync(target, await generateTypes());
console.log(`wrote ${target}`);
