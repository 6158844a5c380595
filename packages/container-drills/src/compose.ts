/**
 * Compose as a machine has it: Compose v2 (`docker compose`, a CLI plugin) when it answers, else
 * Debian's `docker-compose` 1.29. The compose files are valid for both, and the drills use only what
 * both do the same way.
 */
import { execFile, spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { DOCKER, REPO_ROOT } from './client.ts';

const run = promisify(execFile);

export interface ComposeTool {
  /** `docker compose` or `docker-compose`: the program and the arguments before compose's own. */
  readonly command: string;
  readonly args: readonly string[];
  /** The first line its `version` printed. */
  readonly version: string;
}

/** Asked once: `<client> compose version`, else `docker-compose version` (found on env's PATH). */
export function detectCompose(
  client = DOCKER,
  env: NodeJS.ProcessEnv = process.env,
): ComposeTool | undefined {
  const candidates: [string, string[]][] = [
    [client, ['compose']],
    ['docker-compose', []],
  ];
  for (const [command, args] of candidates) {
    const answer = spawnSync(command, [...args, 'version'], { encoding: 'utf8', env, timeout: 20_000 });
    if (answer.status === 0) {
      return { command, args, version: answer.stdout.trim().split('\n')[0] ?? '' };
    }
  }
  return undefined;
}

export function composeName(tool: ComposeTool): string {
  return [basename(tool.command), ...tool.args].join(' ');
}

/**
 * Compose on one project and file; `env` is read at each call, as a drill sets ports and secrets once
 * its project is named. Resolves with stdout, rejects with stderr. `tool` undefined: every call
 * rejects (a drill runs only where compose was found).
 */
export function composeCommand(
  tool: ComposeTool | undefined,
  project: string,
  file: string,
  env: () => NodeJS.ProcessEnv,
): (...args: string[]) => Promise<string> {
  return async (...args) => {
    if (tool === undefined) throw new Error('no compose answers here (`docker compose`, `docker-compose`)');
    try {
      const { stdout } = await run(
        tool.command,
        [...tool.args, '--project-name', project, '--file', file, ...args],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, ...env() },
        },
      );
      return stdout.trim();
    } catch (error) {
      const failure = error as { stderr?: string; message: string };
      throw new Error(
        `${composeName(tool)} ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`,
      );
    }
  };
}
