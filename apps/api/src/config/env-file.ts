// A checkout's `.env`: the settings of a developer's machine, kept out of git (.gitignore), read at start.
// Not Node's --env-file-if-exists: Node writes "not found. Continuing without it." on stderr at every start
// without one. Node's own parser (util.parseEnv) reads it, and the environment wins, as with Node's flag.
import { parseEnv } from 'node:util';
import { readSmallFile } from './small-file.ts';

/** The file, relative to the working directory: `pnpm start` and `pnpm dev` run in the checkout's root. */
export const ENV_FILE = '.env';

// A .env is a few lines; a bound keeps a device or a huge file from filling memory.
const MAX_BYTES = 1024 * 1024;

export type EnvFileReading =
  | {
      /** The file was read: `env` has its variables under the environment's own. */
      readonly read: true;
      readonly env: Readonly<Record<string, string | undefined>>;
      /** The names the file sets, and those of them the environment sets too (its value is kept). */
      readonly variables: readonly string[];
      readonly overridden: readonly string[];
    }
  | {
      readonly read: false;
      readonly env: Readonly<Record<string, string | undefined>>;
      /** There is one, left unread: NODE_ENV is production, where settings come from the environment alone. */
      readonly ignored?: true;
    }
  | { readonly problem: string };

/**
 * The environment the settings are read from: `env`, and under it the variables of `path` when it is
 * there, unless `env` says NODE_ENV=production (a deployment's settings are its environment's, and a
 * stray file must not change them).
 */
export function withEnvFile(env: NodeJS.ProcessEnv, path: string = ENV_FILE): EnvFileReading {
  const contents = readSmallFile(path, MAX_BYTES);
  if ('why' in contents && contents.why === 'ENOENT') return { read: false, env };
  if (env.NODE_ENV === 'production') return { read: false, env, ignored: true };
  if (!('bytes' in contents)) {
    const why =
      'notRegular' in contents
        ? 'not a regular file'
        : 'tooLarge' in contents
          ? `larger than ${MAX_BYTES} bytes`
          : contents.why;
    return {
      problem: `${path} could not be read (${why}): make it a file this process may read, or remove it`,
    };
  }
  const file = parseEnv(contents.bytes.toString('utf8'));
  const variables = Object.keys(file).sort();
  return {
    read: true,
    env: { ...file, ...env },
    variables,
    overridden: variables.filter((name) => env[name] !== undefined),
  };
}
