import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

/** A start script, `[NAME=value ...] node [flags] <entry.js>`, as its environment and its command. */
function startScript(manifest: string): { env: Record<string, string>; command: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, value] = (words.shift() as string).split('=', 2) as [string, string];
    env[name] = value;
  }
  return { env, command: words };
}

// `pnpm start`, the Docker image and the bench (which reads the root start script) must run the
// service with the same Node flags and environment: the figures in BENCHMARKS.md are those of that command.
describe('the command that starts the service', () => {
  const rootScript = startScript('package.json');

  it('when the Docker image starts the api, then it runs exactly the root start script, its variables set by ENV', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(cmd).toBeDefined();
    expect(JSON.parse(cmd ?? '[]')).toEqual(rootScript.command);
    const env = Object.fromEntries(
      [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((line) =>
        (line[1] as string).split(/\s+/).map((pair) => pair.split('=', 2) as [string, string]),
      ),
    );
    expect(env).toMatchObject(rootScript.env);
  });

  it("when the api package's own start script runs, then it passes the same Node flags and variables", () => {
    const api = startScript('apps/api/package.json');
    const flags = (words: string[]) => words.filter((word) => word.startsWith('--'));
    expect(flags(api.command)).toEqual(flags(rootScript.command));
    expect(api.env).toEqual(rootScript.env);
    expect(flags(rootScript.command)).toContain('--max-semi-space-size=8');
    expect(rootScript.env).toEqual({ MALLOC_ARENA_MAX: '2' });
  });
});
