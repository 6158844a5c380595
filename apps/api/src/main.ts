// The service's entry point: `node apps/api/src/main.ts`. Configuration comes from the environment,
// and from a .env in the working directory outside production (config/env-file.ts).
import { randomBytes } from 'node:crypto';
import { StorageUnavailableError } from '@plant-store/domain';
import { pino } from 'pino';
import { ENV_FILE, withEnvFile } from './config/env-file.ts';
import { lookalikes } from './config/lookalikes.ts';
import { type Config, ConfigError, loadConfig, SETTINGS } from './config.ts';
import { stdoutDestination } from './log-destination.ts';
import type { RunningServer } from './server.ts';
import { startServer } from './start.ts';
import { StorageRefusedError } from './storage-adapters.ts';
import { oneLine } from './tracing/diag-log.ts';
import { startTracing, type Tracing } from './tracing/tracing.ts';

// How long the last log lines may take to leave before the process exits anyway.
const FINAL_FLUSH_MS = 1_000;

// The banner and start errors go to stderr; a broken stderr must not turn into a crash.
process.stderr.on('error', () => {});

/** A start refused: why, in one line on stderr (never the log: it would say it twice), and exit 1. */
function refuse(reason: string): never {
  process.stderr.write(`plant-store cannot start: ${reason}\n`);
  process.exit(1);
}

const reading = withEnvFile(process.env);
const environment = 'problem' in reading ? refuse(reading.problem) : reading;

// Said before the settings are read, on stderr where a person starting it looks, and in the log below:
// a refusal they explain (no token in production) comes after them.
const misspelt = lookalikes(
  Object.keys(environment.env),
  Object.values(SETTINGS).map(({ variable }) => variable),
).map(({ variable, setting }) => {
  const where = environment.read && process.env[variable] === undefined ? ` (in ${ENV_FILE})` : '';
  return {
    variable,
    setting,
    message: `${variable}${where} is not a setting, and is ignored: did you mean ${setting}?`,
  };
});
for (const { message } of misspelt) process.stderr.write(`plant-store: ${message}\n`);

function loadConfigOrExit(): Config {
  try {
    return loadConfig(environment.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    refuse(error.message);
  }
}

// Goes to the terminal once, never to the logs, which are kept and shipped.
function printGeneratedToken(token: string, url: string): void {
  const curl =
    `curl -X POST ${url}/plants -H 'Authorization: Bearer ${token}' ` +
    `-H 'Content-Type: application/json' -d '{"id":1,"name":"Monstera","tag":"aroid"}'`;
  process.stderr.write(
    [
      '',
      '------------------------------------------------------------------------',
      ' No API token is configured (API_TOKENS, API_TOKENS_FILE), so this run',
      ' made one. It is valid until the service stops:',
      '',
      `   ${token}`,
      '',
      ' To keep a token across restarts, set it yourself, for example:',
      '',
      `   API_TOKENS=${token} pnpm start`,
      '',
      ` or put API_TOKENS=${token} in ${ENV_FILE}, read at every start (pnpm dev's restarts too).`,
      '',
      ' Try it:',
      '',
      `   ${curl}`,
      '------------------------------------------------------------------------',
      '',
      '',
    ].join('\n'),
  );
}

const loaded = loadConfigOrExit();
const logDestination = stdoutDestination();
const logger = pino({ level: loaded.logLevel }, logDestination);
if (environment.read) {
  // Names only: a .env holds tokens and passwords.
  logger.info(
    { envFile: ENV_FILE, variables: environment.variables, keptFromEnvironment: environment.overridden },
    `settings read from ${ENV_FILE}`,
  );
} else if (environment.ignored) {
  logger.info({ envFile: ENV_FILE }, `${ENV_FILE} not read: NODE_ENV is production`);
}
for (const { variable, setting, message } of misspelt) logger.warn({ variable, setting }, message);

/** Exits once the log lines written so far have left, or FINAL_FLUSH_MS later: never waits for a reader. */
function exitAfterLogs(code: number): void {
  void logDestination.flush(FINAL_FLUSH_MS).then(() => process.exit(code));
}

// A fault nothing caught: the process is in an unknown state, so it says so and ends (non-zero).
let failing = false;
function fatal(err: unknown, message: string): void {
  if (failing) return;
  failing = true;
  logger.fatal({ err }, message);
  exitAfterLogs(1);
}
process.on('uncaughtException', (error) => fatal(error, 'uncaught exception'));
process.on('unhandledRejection', (reason) => fatal(reason, 'unhandled promise rejection'));

/** The reason a start failed, in one line, when it is a known one. */
function startFailure(error: unknown): string | undefined {
  if (error instanceof StorageRefusedError) return error.message;
  // Its message names the driver's reason (e.g. connect ECONNREFUSED 127.0.0.1:5432), never the URL.
  if (error instanceof StorageUnavailableError) {
    return `${error.message}: start the database server, or set DATABASE_URL to one that runs`;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${loaded.host}:${loaded.port}`;
  if (code === 'EADDRINUSE') return `${where} is in use by another process: set PORT to a free port`;
  if (code === 'EACCES') return `not allowed to listen on ${where}: set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `${loaded.host} is not an address of this machine: check HOST`;
  // Listening looks a HOST that is no address up as a name (256.1.1.1 included), and finds none.
  const { syscall, hostname } = error as { syscall?: unknown; hostname?: unknown };
  if (syscall === 'getaddrinfo' && hostname === loaded.host) {
    return `HOST ${loaded.host} is no address and no name this machine resolves (${code}): set HOST to an address of this machine (127.0.0.1, 0.0.0.0 for all)`;
  }
  return undefined;
}

const generatedToken = loaded.generateToken ? randomBytes(32).toString('base64url') : undefined;
const config: Config = generatedToken === undefined ? loaded : { ...loaded, tokens: [generatedToken] };

// The signals are ours from here on, before anything starts: without a handler, a SIGTERM that comes
// while the service starts (or just after its 'listening' line) would kill it at once, undrained.
let server: RunningServer | undefined;
let tracing: Tracing | undefined;
let stopBy: number | undefined;
function onSignal(signal: NodeJS.Signals): void {
  if (stopBy !== undefined) {
    logger.warn({ signal }, 'second signal: exiting without waiting');
    process.exit(1);
  }
  stopBy = performance.now() + config.shutdownTimeoutMs;
  logger.info({ signal }, 'signal received');
  if (server !== undefined) {
    stop(server, stopBy);
    return;
  }
  // Still starting: it stops once started; a start that outlives the budget is given up.
  setTimeout(() => {
    logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'still starting at the deadline: exiting');
    exitAfterLogs(1);
  }, config.shutdownTimeoutMs);
}
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

function stop(running: RunningServer, by: number): void {
  running
    .stop()
    // The spans of the last requests and deliveries go with what is left of the same budget.
    .then(() => tracing?.shutdown(Math.max(0, by - performance.now())))
    .then(
      () => exitAfterLogs(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        exitAfterLogs(1);
      },
    );
}

// Before the server: the spans of its first requests, and of the storage it opens, have a provider.
tracing = await startTracing(config, logger);

server = await startServer(config, { logDestination, traceExport: tracing?.figures }).catch(
  (error: unknown) => {
    let reason = startFailure(error);
    if (reason === undefined) {
      // Unforeseen: the log keeps its stack, for whoever makes it a known one.
      logger.fatal({ err: error }, 'could not start');
      reason = `${oneLine(error)} (unforeseen: the log has its stack)`;
    }
    process.stderr.write(`plant-store cannot start: ${reason}\n`);
    exitAfterLogs(1);
    return new Promise<never>(() => {});
  },
);
if (stopBy !== undefined) stop(server, stopBy);
else if (generatedToken !== undefined) printGeneratedToken(generatedToken, server.url);
