import type { PlantStorage } from '@plant-store/domain';
import { checkRequestHead } from '@plant-store/http-hardening';
import Koa from 'koa';
import type { Logger } from 'pino';
import { afterCreate } from './after-create.ts';
import type { CredentialChecker } from './auth/credentials.ts';
import type { CorsOrigins } from './config/values.ts';
import type { AppState } from './http/app-state.ts';
import { crossOrigin } from './http/middleware/cors.ts';
import { errorResponses } from './http/middleware/error-responses.ts';
import { requestLog } from './http/middleware/request-log.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { openApiDocumentText } from './openapi/openapi-document.ts';
import { methodNotAllowed, operationsRouter } from './operations/routes.ts';
import { OPERATIONS } from './operations/table.ts';

export interface AppDeps {
  readonly storage: PlantStorage;
  /** Who may do what: the static tokens and, when configured, JWT access tokens (see auth/credentials.ts). */
  readonly credentials: CredentialChecker;
  /** The largest request body, in bytes. */
  readonly bodyLimit: number;
  readonly logger: Logger;
  /** True once the server has begun to stop: /readyz answers 503 and connections close. */
  readonly isShuttingDown?: () => boolean;
  /** Where request and plant metrics go, served at GET /metrics; absent: a registry of the app's own. */
  readonly metrics?: Metrics;
  /** Called after each plant stored for the first time, beside the metrics' count (the webhook's relay). */
  readonly onPlantCreated?: (() => void) | undefined;
  /** CORS_ORIGINS: the origins whose pages may read the answers; absent, no CORS header at all. */
  readonly corsOrigins?: CorsOrigins | undefined;
}

/** The Plant Store HTTP app. It does not listen: see startServer. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  const metrics = deps.metrics ?? createMetrics();
  const { onPlantCreated } = deps;
  const plants = afterCreate(deps.storage.plants, () => {
    metrics.plantCreated();
    onPlantCreated?.();
  });
  const app = new Koa<AppState>({ proxy: false });
  // Koa reports errors that reach it on stderr; error-responses.ts lets none through.
  app.silent = true;

  // The routes of the table of operations; the service describes itself with the same table.
  const router = operationsRouter(OPERATIONS, {
    plants,
    storage: deps.storage,
    credentials: deps.credentials,
    isShuttingDown,
    metrics,
    openApiDocument: openApiDocumentText(),
    bodyLimit: deps.bodyLimit,
  });

  const cors = deps.corsOrigins === undefined ? undefined : crossOrigin(deps.corsOrigins);

  app.use(requestLog(deps.logger, metrics));
  app.use(errorResponses(isShuttingDown));
  // Outside the request-head checks, so that their 400s are readable by a page too.
  if (cors !== undefined) app.use(cors.answers);
  app.use(checkRequestHead());
  app.use(router.routes());
  // Before the 405 that any other OPTIONS gets: the router has matched the path, and knows its methods.
  if (cors !== undefined) app.use(cors.preflights);
  app.use(methodNotAllowed(router));
  return app;
}
