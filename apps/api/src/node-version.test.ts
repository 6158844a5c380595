import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOlderNode, OLDEST_NODE } from './node-version.ts';

describe('the Node.js the service runs on', () => {
  it("when the workspace names its engines, then the service's oldest Node.js is the same", () => {
    const root = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8'),
    );
    expect(root.engines.node).toBe(`>=${OLDEST_NODE}`);
  });

  it.each(['20.20.2', '22.22.0', '24.10.9', '23.99.0'])('when it is %s, then it is too old', (version) => {
    expect(isOlderNode(version)).toBe(true);
  });

  it.each([OLDEST_NODE, '24.11.1', '24.21.0', '25.0.0', '30.1.2'])(
    'when it is %s, then it will do',
    (version) => {
      expect(isOlderNode(version)).toBe(false);
    },
  );
});
