// The service's entry point: `node apps/api/src/main.ts`. Configuration comes from the environment.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

function loadConfigOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`plant-store cannot start: ${error.message}\n`);
    process.exit(1);
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
const logger = pino({ level: loaded.logLevel });
process.on('unhandledRejection', (reason) => {
  logger.fatal({ err: reason }, 'unhandled promise rejection');
  process.exit(1);
});

const generatedToken = loaded.generateToken ? randomBytes(32).toString('base64url') : undefined;
const config: Config = generatedToken === undefined ? loaded : { ...loaded, tokens: [generatedToken] };

const server = await startServer(config).catch((error: unknown) => {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
});
if (generatedToken !== undefined) printGeneratedToken(generatedToken, server.url);

let stopping = false;
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    logger.warn({ signal }, 'second signal: exiting without waiting');
    process.exit(1);
  }
  stopping = true;
  logger.info({ signal }, 'signal received');
  server.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'stopping failed');
      process.exit(1);
    },
  );
}
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
