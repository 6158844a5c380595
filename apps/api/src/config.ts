import { readFileSync } from 'node:fs';
import type { LevelWithSilent } from 'pino';

/** Where plants are kept, chosen by DATABASE_URL. */
export type DatabaseConfig =
  | { readonly kind: 'postgres'; readonly connectionString: string }
  | { readonly kind: 'pglite'; readonly dataDir: string }
  | { readonly kind: 'memory' };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  /** GROUP_COMMIT: concurrent creates share one INSERT (on), or each has its own (off). PostgreSQL and PGlite. */
  readonly groupCommit: boolean;
  /** The bearer tokens from API_TOKENS and API_TOKENS_FILE, without duplicates. */
  readonly tokens: readonly string[];
  /** API_TOKENS_FILE, re-read while the service runs so that tokens can rotate without a restart. */
  readonly tokensFile: string | undefined;
  /** No token is configured outside production: main makes one at start and prints it once. */
  readonly generateToken: boolean;
  readonly bodyLimit: number;
  readonly logLevel: LevelWithSilent;
  readonly nodeEnv: string;
  readonly shutdownTimeoutMs: number;
  /** Node's server timeouts: all headers of a request, the whole request, an idle keep-alive connection. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/** The environment holds bad values; `problems` lists every one of them. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.problems = problems;
  }
}

const DEFAULT_PGLITE_DIR = './data';
const DEFAULT_BODY_LIMIT = 64 * 1024;
// The body is held in memory while it is read; a NewPlant is a few hundred bytes.
const MAX_BODY_LIMIT = 16 * 1024 * 1024;
const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
// RFC 6750 b64token: what may follow `Bearer ` in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Every bad value found: collected rather than thrown at the first, so one start shows them all. */
type Problems = string[];

// Compose files and CI often pass a variable set to nothing: it counts as unset.
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function parseInteger(
  problems: Problems,
  name: string,
  text: string | undefined,
  fallback: number,
  [min, max]: readonly [number, number],
): number {
  if (text === undefined) return fallback;
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (value >= min && value <= max) return value;
  problems.push(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  return fallback;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1024, mb: 1024 * 1024 };

function parseBodyLimit(problems: Problems, text: string | undefined): number {
  if (text === undefined) return DEFAULT_BODY_LIMIT;
  const match = /^([0-9]+)\s*(b|kb|mb)?$/i.exec(text);
  const bytes = match
    ? Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase()] ?? Number.NaN)
    : Number.NaN;
  if (bytes >= 1 && bytes <= MAX_BODY_LIMIT) return bytes;
  problems.push(`BODY_LIMIT must be a size from 1 byte to 16mb, like 65536, 64kb or 1mb, not "${text}"`);
  return DEFAULT_BODY_LIMIT;
}

function parseDatabase(problems: Problems, text: string | undefined): DatabaseConfig {
  if (text === undefined) return { kind: 'pglite', dataDir: DEFAULT_PGLITE_DIR };
  if (text === 'memory:') return { kind: 'memory' };
  if (text.startsWith('pglite:'))
    return { kind: 'pglite', dataDir: text.slice('pglite:'.length) || DEFAULT_PGLITE_DIR };
  if (/^postgres(ql)?:\/\//i.test(text)) {
    if (URL.canParse(text)) return { kind: 'postgres', connectionString: text };
    // The URL may hold a password: never echo it.
    problems.push('DATABASE_URL is not a valid postgres:// URL');
    return { kind: 'memory' };
  }
  problems.push(
    'DATABASE_URL must be postgres://… or postgresql://… (a server), pglite:<dir> (embedded), ' +
      'memory: (nothing kept), or unset (embedded, in ./data)',
  );
  return { kind: 'memory' };
}

function parseSwitch(problems: Problems, name: string, text: string | undefined, fallback: boolean): boolean {
  if (text === undefined) return fallback;
  const value = text.toLowerCase();
  if (value === 'on' || value === 'off') return value === 'on';
  problems.push(`${name} must be on or off, not "${text}"`);
  return fallback;
}

function parseLogLevel(problems: Problems, text: string | undefined): LevelWithSilent {
  if (text === undefined) return 'info';
  const level = LOG_LEVELS.find((known) => known === text.toLowerCase());
  if (level !== undefined) return level;
  problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${text}"`);
  return 'info';
}

/** A token as configured, with where it came from: a bad one is named by its place, never by its value. */
interface TokenEntry {
  readonly token: string;
  readonly place: string;
}

function readTokensFile(problems: Problems, file: string): TokenEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(
      `API_TOKENS_FILE ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return [];
  }
  // One token a line, or several on a line separated by commas as in API_TOKENS (a compose secret
  // made from API_TOKENS holds them so): a comma is never part of a bearer token.
  return text.split(/\r?\n/).flatMap((line, index) => {
    const content = line.trim();
    if (content === '' || content.startsWith('#')) return [];
    const entries = content.split(',').map((entry) => entry.trim());
    return entries.flatMap((token, entry) => {
      if (token === '') return [];
      const place = `API_TOKENS_FILE line ${index + 1}${entries.length > 1 ? ` entry ${entry + 1}` : ''}`;
      return [{ token, place }];
    });
  });
}

/** The valid tokens of an API_TOKENS_FILE and the problems with it (never a token's value), for re-reading it. */
export function readTokenFile(file: string): { tokens: string[]; problems: string[] } {
  const problems: Problems = [];
  const tokens = validTokens(problems, readTokensFile(problems, file));
  return { tokens, problems };
}

function validTokens(problems: Problems, entries: readonly TokenEntry[]): string[] {
  const tokens = new Set<string>();
  for (const { token, place } of entries) {
    if (B64TOKEN.test(token)) tokens.add(token);
    else
      problems.push(
        `${place} is not a valid bearer token (allowed: A-Z a-z 0-9 - . _ ~ + / and a trailing =)`,
      );
  }
  return [...tokens];
}

function parseTokens(problems: Problems, env: NodeJS.ProcessEnv): string[] {
  const list = setting(env, 'API_TOKENS') ?? '';
  const file = setting(env, 'API_TOKENS_FILE');
  const entries = [
    ...list
      .split(',')
      .map((entry, index) => ({ token: entry.trim(), place: `API_TOKENS entry ${index + 1}` }))
      .filter(({ token }) => token !== ''),
    ...(file === undefined ? [] : readTokensFile(problems, file)),
  ];
  return validTokens(problems, entries);
}

/** Reads the service's settings from the environment, once; throws ConfigError listing every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const problems: Problems = [];
  const nodeEnv = setting(env, 'NODE_ENV') ?? 'development';
  const problemsBeforeTokens = problems.length;
  const tokens = parseTokens(problems, env);
  const production = nodeEnv === 'production';
  // Tokens that were given but are all invalid are named above; "without a token" would mislead.
  if (tokens.length === 0 && production && problems.length === problemsBeforeTokens) {
    problems.push('refusing to start without API_TOKENS or API_TOKENS_FILE when NODE_ENV is production');
  }
  const config: Config = {
    port: parseInteger(problems, 'PORT', setting(env, 'PORT'), 3000, [0, 65535]),
    // Only this machine by default; a container sets HOST=0.0.0.0 on purpose.
    host: setting(env, 'HOST') ?? '127.0.0.1',
    database: parseDatabase(problems, setting(env, 'DATABASE_URL')),
    groupCommit: parseSwitch(problems, 'GROUP_COMMIT', setting(env, 'GROUP_COMMIT'), true),
    tokens,
    tokensFile: setting(env, 'API_TOKENS_FILE'),
    generateToken: tokens.length === 0 && !production,
    bodyLimit: parseBodyLimit(problems, setting(env, 'BODY_LIMIT')),
    logLevel: parseLogLevel(problems, setting(env, 'LOG_LEVEL')),
    nodeEnv,
    shutdownTimeoutMs: parseInteger(
      problems,
      'SHUTDOWN_TIMEOUT_MS',
      setting(env, 'SHUTDOWN_TIMEOUT_MS'),
      10_000,
      [0, 600_000],
    ),
    headersTimeoutMs: parseInteger(
      problems,
      'HEADERS_TIMEOUT_MS',
      setting(env, 'HEADERS_TIMEOUT_MS'),
      10_000,
      [100, 600_000],
    ),
    requestTimeoutMs: parseInteger(
      problems,
      'REQUEST_TIMEOUT_MS',
      setting(env, 'REQUEST_TIMEOUT_MS'),
      30_000,
      [100, 3_600_000],
    ),
    keepAliveTimeoutMs: parseInteger(
      problems,
      'KEEP_ALIVE_TIMEOUT_MS',
      setting(env, 'KEEP_ALIVE_TIMEOUT_MS'),
      5_000,
      [100, 600_000],
    ),
  };
  // Node refuses a server whose headers may take longer than the whole request.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
