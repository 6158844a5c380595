export { type AppDeps, createApp } from './app.ts';
export { type Config, ConfigError, type DatabaseConfig, loadConfig } from './config.ts';
export type { ErrorBody } from './http/middleware/error-responses.ts';
export {
  buildOpenApiDocument,
  type OpenApiDocument,
  stringifyExactJson,
} from './openapi/openapi-document.ts';
export { type RunningServer, type StartOptions, startServer } from './server.ts';
