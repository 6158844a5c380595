// On a runtime without JSON.rawJSON or the reviver's source text (Node.js 20 and older), the client
// refuses to load, naming the version it needs and the one it found, rather than round ids. Node 20
// itself is exercised on the packed client (packages/package-tarballs); here the features are taken
// away from this Node, in a child process, to check each one is detected.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const INDEX = new URL('../src/index.ts', import.meta.url).href;

function importWithout(removal: string): { status: number | null; stderr: string } {
  const script = `${removal}; await import(${JSON.stringify(INDEX)}); console.log('loaded');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' });
  return { status: child.status, stderr: child.stderr };
}

describe('the client on a runtime that cannot keep int64 ids exact', () => {
  it.each([
    ['JSON.rawJSON', 'delete JSON.rawJSON'],
    [
      "the reviver's source text",
      'const parse = JSON.parse; JSON.parse = (text, reviver) => parse(text, reviver && ((key, value) => reviver(key, value)))',
    ],
  ])(
    'when %s is missing, then importing it fails with a message naming Node.js 22 and the version found',
    (_what, removal) => {
      const { status, stderr } = importWithout(removal);
      expect(status).not.toBe(0);
      expect(stderr).toContain(
        `@plant-store/client needs Node.js 22 or later, found Node.js ${process.versions.node}: it keeps int64 ids exact`,
      );
    },
  );

  it('when nothing is missing, then it loads', () => {
    const { status, stderr } = importWithout('');
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
