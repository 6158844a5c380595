// What other workspace code may use of the service: start it in-process, as the client's tests do,
// or mount its Koa app in another server. Everything else is the service's own.
export { type AppDeps, createApp } from './app.ts';
export { type Config, ConfigError, type DatabaseConfig, loadConfig } from './config.ts';
export { type RunningServer, type StartOptions, startServer } from './server.ts';
