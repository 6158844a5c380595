import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

function startScript(manifest: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as {
    scripts: { start: string };
  };
  return scripts.start.split(/\s+/);
}

// `pnpm start`, the Docker image and the bench (which reads the root start script) must run the
// service with the same Node flags: the figures in BENCHMARKS.md are those of that command.
describe('the command that starts the service', () => {
  it('when the Docker image starts the api, then it runs exactly the root start script', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd).toBeDefined();
    expect(JSON.parse(cmd ?? '[]')).toEqual(startScript('package.json'));
  });

  it("when the api package's own start script runs, then it passes the same Node flags", () => {
    const flags = (words: string[]) => words.filter((word) => word.startsWith('--'));
    expect(flags(startScript('apps/api/package.json'))).toEqual(flags(startScript('package.json')));
    expect(flags(startScript('package.json'))).toContain('--max-semi-space-size=8');
  });
});
