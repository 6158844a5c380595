import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../scripts/generate-types.ts';

describe('the generated types', () => {
  it('when they are generated again from the committed OpenAPI document, then they are the committed file: run `pnpm generate` if not', async () => {
    const committed = readFileSync(join(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts'), 'utf8');
    expect(
      committed,
      'src/generated/openapi.ts is not what apps/api/openapi.json makes: run `pnpm generate` at the root, and commit it',
    ).toBe(await generateTypes());
  });

  it('when the id type is read, then it is a bigint, as int64 needs', () => {
    const committed = readFileSync(join(import.meta.dirname, '..', 'src', 'generated', 'openapi.ts'), 'utf8');
    expect(committed).toMatch(/NewPlant: \{[^}]*\bid: bigint;/s);
  });
});
