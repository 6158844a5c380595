import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runOrThrow } from './run-command.ts';
import { WORKSPACE_ROOT } from './workspace.ts';

/** The consumer's sources and tsconfig.json, copied into each fresh project. */
const CONSUMER_SOURCES = join(import.meta.dirname, '..', 'consumer');

/**
 * What a TypeScript user of the packages has beside them: TypeScript 5 and the types of the oldest Node
 * the packages support. Exact versions, so that a new release changes nothing here unnoticed.
 */
export const CONSUMER_TOOLS = ['typescript@5.9.3', '@types/node@20.19.43'] as const;

// What pnpm, turbo and vitest add to the environment of the scripts they run. A user's own npm settings
// (npm_config_registry, a proxy, a cache folder) are kept.
const RUNNER_VARIABLES =
  /^(npm_(lifecycle|package)_|npm_(command|execpath|node_execpath)$|npm_config_user_agent$|pnpm_config_|PNPM_|VITEST|TURBO_)/;

/**
 * The environment of a user's shell: nothing of the workspace (its node_modules/.bin, what pnpm, turbo
 * and vitest set, NODE_OPTIONS) reaches the fresh project.
 */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (RUNNER_VARIABLES.test(name) || ['NODE_OPTIONS', 'NODE_ENV', 'TEST'].includes(name)) continue;
    env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.startsWith(WORKSPACE_ROOT))
    .join(delimiter);
  return env;
}

/**
 * A new project in `dir` (outside the workspace) with the tarballs installed by npm, their dependencies
 * from the npm registry (or npm's cache: nothing is fetched that is there already), and the consumer.
 */
export async function createConsumerProject(dir: string, tarballs: readonly string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'plant-store-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  cpSync(CONSUMER_SOURCES, dir, { recursive: true });
  await runOrThrow(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...tarballs,
      ...CONSUMER_TOOLS,
    ],
    { cwd: dir, env: userEnvironment() },
  );
}
