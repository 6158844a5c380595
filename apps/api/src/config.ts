import { DEFAULT_RETRY_SCHEDULE } from '@plant-store/webhooks';
import type { LevelWithSilent } from 'pino';
import * as v from 'valibot';
import { DEFAULT_SCOPES } from './auth/credentials.ts';
import { tokenList } from './config/bearer-tokens.ts';
import { OTEL_SETTINGS } from './config/otel-settings.ts';
import { setting } from './config/setting.ts';
import { tokensFile } from './config/tokens-file.ts';
import {
  autoOrWholeNumber,
  corsOrigins,
  databaseUrl,
  httpUrl,
  jwtAlgorithms,
  oneOf,
  onOff,
  retrySchedule,
  scopeName,
  size,
  text,
  webhookSecrets,
  webhookUrls,
  wholeNumber,
} from './config/values.ts';
import { DEFAULT_DATABASE_URL } from './storage-adapters.ts';

export type { DatabaseConfig } from './storage-adapters.ts';

const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Every setting of the service, once: the field of Config it fills, its environment variable, how
 * its text is read (range and message), and its default as one would write it. A new setting is
 * one line here and one row in the README's table, which a test holds to these defaults.
 */
export const SETTINGS = {
  port: setting('PORT', wholeNumber(0, 65_535), '3000'),
  // Only this machine by default; a container sets HOST=0.0.0.0 on purpose.
  host: setting('HOST', text, '127.0.0.1'),
  /** Where plants are kept: an entry of the table in storage-adapters.ts. */
  database: setting('DATABASE_URL', databaseUrl, DEFAULT_DATABASE_URL),
  /** Concurrent creates share one INSERT (on), or each has its own (off). PostgreSQL and PGlite. */
  groupCommit: setting('GROUP_COMMIT', onOff, 'on'),
  /** The PostgreSQL adapter's frequent statements prepared once per connection (on); off behind PgBouncer < 1.21. */
  preparedStatements: setting('DATABASE_PREPARED_STATEMENTS', onOff, 'on'),
  /** API_TOKENS, as listed; Config.tokens has them with the file's. */
  listedTokens: setting('API_TOKENS', tokenList),
  /** API_TOKENS_FILE as read at start, re-read while the service runs so that tokens can rotate without a restart. */
  tokensFile: setting('API_TOKENS_FILE', tokensFile),
  // The body is held in memory while it is read; a NewPlant is a few hundred bytes.
  bodyLimit: setting('BODY_LIMIT', size('16mb'), '64kb'),
  logLevel: setting('LOG_LEVEL', oneOf(LOG_LEVELS), 'info'),
  /** `production` refuses to start without a token; anything else makes one when none is configured. */
  nodeEnv: setting('NODE_ENV', text, 'development'),
  shutdownTimeoutMs: setting('SHUTDOWN_TIMEOUT_MS', wholeNumber(0, 600_000), '10000'),
  /** After SIGTERM, /readyz answers 503 while the service serves on this long, so that a load balancer's check takes it out first; part of SHUTDOWN_TIMEOUT_MS. */
  shutdownGraceMs: setting('SHUTDOWN_GRACE_MS', wholeNumber(0, 600_000), '0'),
  /** Node's server timeouts: all headers of a request, the whole request, an idle keep-alive connection. */
  headersTimeoutMs: setting('HEADERS_TIMEOUT_MS', wholeNumber(100, 600_000), '10000'),
  requestTimeoutMs: setting('REQUEST_TIMEOUT_MS', wholeNumber(100, 3_600_000), '30000'),
  keepAliveTimeoutMs: setting('KEEP_ALIVE_TIMEOUT_MS', wholeNumber(100, 600_000), '5000'),
  /** Open connections at most; `auto`: the open files limit less what the process needs besides (connection-limit.ts). */
  maxConnections: setting('MAX_CONNECTIONS', autoOrWholeNumber(1, 10_000_000), 'auto'),
  /** How long a client may take to read an answer once it is written: a reader that stalls is cut off. */
  sendTimeoutMs: setting('SEND_TIMEOUT_MS', wholeNumber(100, 3_600_000), '60000'),
  /** Browsers (DESIGN.md): the origins whose pages may read the answers; unset, no CORS header at all. */
  corsOrigins: setting('CORS_ORIGINS', corsOrigins),
  /** JWT access tokens (DESIGN.md): the issuer turns them on; the audience is required with it. */
  jwtIssuer: setting('JWT_ISSUER', httpUrl),
  jwtAudience: setting('JWT_AUDIENCE', text),
  /** Default: the `jwks_uri` of the issuer's discovery document. */
  jwtJwksUrl: setting('JWT_JWKS_URL', httpUrl),
  jwtAlgorithms: setting('JWT_ALGORITHMS', jwtAlgorithms, 'RS256,PS256,ES256,EdDSA'),
  jwtClockToleranceS: setting('JWT_CLOCK_TOLERANCE_S', wholeNumber(0, 600), '30'),
  jwtScopeRead: setting('JWT_SCOPE_READ', scopeName, DEFAULT_SCOPES.read),
  jwtScopeWrite: setting('JWT_SCOPE_WRITE', scopeName, DEFAULT_SCOPES.write),
  /** RFC 9068's profile: `typ: at+jwt` and its claims (sub, client_id, iat, jti) required. */
  jwtStrictProfile: setting('JWT_STRICT_PROFILE', onOff, 'off'),
  /** The webhook on creation (DESIGN.md): where each plant created is POSTed; unset, none is sent. */
  webhookUrls: setting('WEBHOOK_URLS', webhookUrls),
  /** Required with WEBHOOK_URLS: the Standard Webhooks secret(s) deliveries are signed with. */
  webhookSecrets: setting('WEBHOOK_SECRET', webhookSecrets),
  webhookRetrySchedule: setting('WEBHOOK_RETRY_SCHEDULE', retrySchedule, DEFAULT_RETRY_SCHEDULE),
  /** One delivery attempt (connect, send, answer) is abandoned after this long. */
  webhookTimeoutMs: setting('WEBHOOK_TIMEOUT_MS', wholeNumber(100, 60_000), '10000'),
  /** `memory:` storage: events waiting in its outbox, and again in its delivery queue, at most; then creates answer 503. */
  webhookMemoryBacklog: setting('WEBHOOK_MEMORY_BACKLOG', wholeNumber(1, 10_000_000), '10000'),
  ...OTEL_SETTINGS,
};

type Declared = typeof SETTINGS;
/** The settings by field of Config. */
type Settings = { readonly [Field in keyof Declared]: v.InferOutput<Declared[Field]['schema']> };
/** The schema of each variable, by its name. */
type VariableSchemas = {
  [Field in keyof Declared as Declared[Field]['variable']]: Declared[Field]['schema'];
};

export type Config = Omit<Settings, 'listedTokens'> & {
  /** Every token accepted at start, from API_TOKENS and API_TOKENS_FILE, without duplicates. */
  readonly tokens: readonly string[];
  /** No token is configured outside production: main makes one at start and prints it once. */
  readonly generateToken: boolean;
};

/** The environment holds bad values; `problems` lists every one of them. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  /** One problem is its own line; several are listed, one a line, under a line that says so. */
  constructor(problems: readonly string[]) {
    super(
      problems.length === 1
        ? (problems[0] as string)
        : `invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

const VARIABLES = v.object(
  Object.fromEntries(
    Object.values(SETTINGS).map(({ variable, schema }) => [variable, schema]),
  ) as VariableSchemas,
);
type Variables = v.InferOutput<typeof VARIABLES>;

// Compose files and CI often pass a variable set to nothing: it counts as unset.
function blankAsUnset(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value?.trim() || undefined]));
}

function toConfig(variables: Variables): Config {
  const { listedTokens, ...settings } = Object.fromEntries(
    Object.entries(SETTINGS).map(([field, { variable }]) => [field, variables[variable as keyof Variables]]),
  ) as Settings;
  const tokens = [...new Set([...(listedTokens ?? []), ...(settings.tokensFile?.tokens ?? [])])];
  return {
    ...settings,
    tokens,
    // With JWT on, the provider issues the credentials: no token is made up.
    generateToken:
      tokens.length === 0 && settings.nodeEnv !== 'production' && settings.jwtIssuer === undefined,
  };
}

// The rules across settings run when the settings they read are valid, and even when others are not,
// so that one start still shows every problem.
const CONFIG = v.pipe(
  v.record(v.string(), v.optional(v.string())),
  v.transform(blankAsUnset),
  VARIABLES,
  // Tokens given but all invalid are named already: "without a token" would mislead.
  v.partialCheck(
    [['NODE_ENV'], ['API_TOKENS'], ['API_TOKENS_FILE'], ['JWT_ISSUER']],
    (env) =>
      env.NODE_ENV !== 'production' ||
      env.JWT_ISSUER !== undefined ||
      (env.API_TOKENS?.length ?? 0) + (env.API_TOKENS_FILE?.tokens.length ?? 0) > 0,
    'refusing to start without API_TOKENS, API_TOKENS_FILE or JWT_ISSUER when NODE_ENV is production',
  ),
  v.forward(
    v.partialCheck(
      [['JWT_ISSUER'], ['JWT_AUDIENCE']],
      (env) => env.JWT_ISSUER === undefined || env.JWT_AUDIENCE !== undefined,
      'is required with JWT_ISSUER: the audience access tokens must be for',
    ),
    ['JWT_AUDIENCE'],
  ),
  v.forward(
    v.partialCheck(
      [['WEBHOOK_URLS'], ['WEBHOOK_SECRET']],
      (env) => env.WEBHOOK_URLS === undefined || env.WEBHOOK_SECRET !== undefined,
      'is required with WEBHOOK_URLS: every delivery is signed (whsec_ followed by base64)',
    ),
    ['WEBHOOK_SECRET'],
  ),
  v.forward(
    v.partialCheck(
      [['WEBHOOK_URLS'], ['WEBHOOK_SECRET']],
      (env) => env.WEBHOOK_SECRET === undefined || env.WEBHOOK_URLS !== undefined,
      'is set but WEBHOOK_URLS is not: no webhook would be sent',
    ),
    ['WEBHOOK_SECRET'],
  ),
  // Node refuses a server whose headers may take longer than the whole request.
  v.forward(
    v.partialCheck(
      [['HEADERS_TIMEOUT_MS'], ['REQUEST_TIMEOUT_MS']],
      (env) => env.HEADERS_TIMEOUT_MS <= env.REQUEST_TIMEOUT_MS,
      'must not be larger than REQUEST_TIMEOUT_MS',
    ),
    ['HEADERS_TIMEOUT_MS'],
  ),
  // The grace is part of the stop's one budget: the process still ends within SHUTDOWN_TIMEOUT_MS + 1 s.
  v.forward(
    v.partialCheck(
      [['SHUTDOWN_GRACE_MS'], ['SHUTDOWN_TIMEOUT_MS']],
      (env) => env.SHUTDOWN_GRACE_MS <= env.SHUTDOWN_TIMEOUT_MS,
      'must not be larger than SHUTDOWN_TIMEOUT_MS, of which it is a part',
    ),
    ['SHUTDOWN_GRACE_MS'],
  ),
  // The processor takes each batch from its queue: a larger batch is cut down by the SDK, with a warning.
  v.forward(
    v.partialCheck(
      [['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'], ['OTEL_BSP_MAX_QUEUE_SIZE']],
      (env) =>
        env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE === undefined ||
        env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE <= env.OTEL_BSP_MAX_QUEUE_SIZE,
      (issue) =>
        `must not be larger than OTEL_BSP_MAX_QUEUE_SIZE (${(issue.input as Variables).OTEL_BSP_MAX_QUEUE_SIZE}), the queue a batch is taken from`,
    ),
    ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'],
  ),
  // A processor that stopped waiting would start the next export while one is still under way.
  v.forward(
    v.partialCheck(
      [['OTEL_BSP_EXPORT_TIMEOUT'], ['OTEL_EXPORTER_OTLP_TIMEOUT'], ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT']],
      (env) =>
        env.OTEL_BSP_EXPORT_TIMEOUT >=
        (env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT),
      (issue) => {
        const env = issue.input as Variables;
        const exporter =
          env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT === undefined
            ? `OTEL_EXPORTER_OTLP_TIMEOUT, ${env.OTEL_EXPORTER_OTLP_TIMEOUT}`
            : `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, ${env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT}`;
        return `(${env.OTEL_BSP_EXPORT_TIMEOUT} ms) must not be shorter than an export may take (${exporter} ms): the next export would start beside one still under way`;
      },
    ),
    ['OTEL_BSP_EXPORT_TIMEOUT'],
  ),
  // A client certificate is presented with its key, or not at all.
  v.forward(
    v.partialCheck(
      [
        ['OTEL_EXPORTER_OTLP_CLIENT_KEY'],
        ['OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY'],
        ['OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
        ['OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE'],
      ],
      (env) =>
        ((env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY ?? env.OTEL_EXPORTER_OTLP_CLIENT_KEY) === undefined) ===
        ((env.OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE ?? env.OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE) ===
          undefined),
      'and OTEL_EXPORTER_OTLP_CLIENT_KEY go together (or their _TRACES_ forms): a client certificate is presented with its key',
    ),
    ['OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
  ),
  v.transform(toConfig),
);

/** An issue as one line: the variable's name, then what is wrong with it. */
function problemOf(issue: v.BaseIssue<unknown>): string {
  const variable = v.getDotPath(issue);
  return variable === null ? issue.message : `${variable} ${issue.message}`;
}

/** Reads the service's settings from the environment, once; throws ConfigError listing every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const result = v.safeParse(CONFIG, env);
  if (!result.success) throw new ConfigError(result.issues.map(problemOf));
  return result.output;
}
