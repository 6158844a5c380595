import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-version.ts';

it('when spans name their tracer, then they say the name and version package.json says', async () => {
  const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  expect({ name: PACKAGE_NAME, version: PACKAGE_VERSION }).toStrictEqual({
    name: manifest.name,
    version: manifest.version,
  });
});
