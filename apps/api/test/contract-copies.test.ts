import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { warnDidNotRun } from '@plant-store/test-support';
import { describe, expect, it } from 'vitest';

// contract/ holds verbatim copies of the shared specification so that a clone is complete on its
// own. Where the shared folder sits beside the checkout (the project's machines), the copies must
// not have drifted from it; elsewhere there is nothing to compare, and the test says so by skipping.
const root = join(import.meta.dirname, '..', '..', '..');
const shared = join(root, '..', 'shared');
const COPIES = [
  ['contract/SPEC.md', 'contract/SPEC.md'],
  ['contract/plant-store.openapi.yaml', 'contract/plant-store.openapi.yaml'],
  ['contract/DESIGN.md', 'DESIGN.md'],
] as const;

const sharedHere = existsSync(shared);
if (!sharedHere) {
  warnDidNotRun(
    'The comparison of contract/ with the shared specification (contract-copies.test.ts)',
    `${shared} does not exist: the shared folder sits beside the checkout only on the project's own machines`,
    'nothing to fix in a plain clone: contract/ is complete on its own',
  );
}

describe(`the copies of the specification in contract/${sharedHere ? '' : ' (not compared: no shared folder beside the checkout)'}`, () => {
  it.skipIf(!sharedHere).each(COPIES)(
    'when the shared specification is beside the checkout, then %s is the same as its original',
    (copy, original) => {
      expect(readFileSync(join(root, copy), 'utf8')).toBe(readFileSync(join(shared, original), 'utf8'));
    },
  );

  it('when the service is tested, then the contract it is held to is in the repository', () => {
    for (const [copy] of COPIES) expect(existsSync(join(root, copy)), copy).toBe(true);
  });
});
