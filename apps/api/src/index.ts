// What other workspace code may use of the service: start it in-process, as the client's tests do,
// or mount its Koa app in another server. Everything else is the service's own.
export { type AppDeps, createApp } from './app.ts';
export { type ComposeOptions, composeService, openConfiguredStorage, type Service } from './compose.ts';
export { type Config, ConfigError, type DatabaseConfig, loadConfig } from './config.ts';
export { type RunningServer, serve } from './server.ts';
export { startServer } from './start.ts';
