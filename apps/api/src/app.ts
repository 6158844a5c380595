import { METHODS } from 'node:http';
import Router, { type RouterMiddleware } from '@koa/router';
import type { PlantStorage } from '@plant-store/domain';
import { checkRequestHead, jsonBody } from '@plant-store/http-hardening';
import Koa from 'koa';
import compose from 'koa-compose';
import type { Logger } from 'pino';
import { afterCreate } from './after-create.ts';
import type { CredentialChecker } from './auth/credentials.ts';
import type { AppState } from './http/app-state.ts';
import { bearerAuth } from './http/middleware/bearer-auth.ts';
import { errorResponses } from './http/middleware/error-responses.ts';
import { requestLog } from './http/middleware/request-log.ts';
import { docsAssetHandler, docsPageHandler, openApiDocumentHandler } from './http/routes/docs.ts';
import { healthHandler, readinessHandler } from './http/routes/health.ts';
import {
  createPlantHandler,
  deletePlantHandler,
  getPlantHandler,
  listPlantsHandler,
  NEW_PLANT_MEMBERS,
} from './http/routes/plants.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { metricsHandler } from './metrics/metrics-route.ts';

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
}

/** The Plant Store HTTP app. It does not listen: see startServer. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  const { credentials } = deps;
  const { read, write } = credentials.scopes;
  const metrics = deps.metrics ?? createMetrics();
  const { onPlantCreated } = deps;
  const plants = afterCreate(deps.storage.plants, () => {
    metrics.plantCreated();
    onPlantCreated?.();
  });
  const app = new Koa<AppState>({ proxy: false });
  // Koa reports errors that reach it on stderr; error-responses.ts lets none through.
  app.silent = true;

  // Paths match exactly as the contract spells them: /Plants and /plants/ are not /plants. Every method
  // Node parses is one the router knows, so a wrong one on a known path is 405 with Allow, never 501;
  // and one route runs per request, the most specific, as OpenAPI matches paths.
  const router = new Router<AppState>({
    methods: METHODS,
    strict: true,
    sensitive: true,
    exclusive: 'specificity',
  });
  // Reading and deleting (DESIGN.md): credential, then parameters, then storage. HEAD answers wherever
  // GET does (the router routes it to the GET handler; Koa sends no body).
  router.get('/plants', route(bearerAuth(credentials, read), listPlantsHandler(plants)));
  router.get('/plants/:id', route(bearerAuth(credentials, read), getPlantHandler(plants)));
  router.delete('/plants/:id', route(bearerAuth(credentials, write), deletePlantHandler(plants)));
  router.post(
    '/plants',
    route(
      // DESIGN.md's order: credential (401), scope (403), media type (415), size (413), JSON and fields (400), duplicate (409).
      bearerAuth(credentials, write),
      jsonBody({ limit: deps.bodyLimit, members: NEW_PLANT_MEMBERS }),
      createPlantHandler(plants),
    ),
  );
  router.get('/healthz', healthHandler());
  router.get('/readyz', readinessHandler(deps.storage, isShuttingDown, credentials));
  // The service describes itself: no token needed (see openapi/openapi-document.ts).
  router.get('/openapi.json', openApiDocumentHandler());
  router.get('/docs', docsPageHandler());
  router.get('/docs/assets/:file', docsAssetHandler());

  // Operators' metrics: same port, same bearer tokens as the API (see RELIABILITY.md for why).
  router.get('/metrics', route(bearerAuth(credentials, read), metricsHandler(metrics)));

  app.use(requestLog(deps.logger, metrics));
  app.use(errorResponses(isShuttingDown));
  app.use(checkRequestHead());
  app.use(router.routes());
  app.use(methodNotAllowed(router));
  return app;
}

/**
 * A route's middleware composed once, into the one middleware the router is given: @koa/router composes
 * a route's list anew on every request, and koa-compose flattens it with an Array concat per entry.
 */
function route(...middleware: RouterMiddleware<AppState>[]): RouterMiddleware<AppState> {
  return compose(middleware);
}

/**
 * @koa/router's `allowedMethods()`: a known path asked with a method it does not serve gets 405 and
 * `Allow` (error-responses.ts writes the JSON body). OPTIONS too: the router would answer it 200 with an
 * empty body, which the published document, having no OPTIONS operation, does not describe.
 */
function methodNotAllowed(router: Router<AppState>): RouterMiddleware<AppState> {
  const allowedMethods = router.allowedMethods();
  return async (ctx, next) => {
    await allowedMethods(ctx, next);
    if (ctx.method === 'OPTIONS' && ctx.status === 200) {
      ctx.body = undefined;
      ctx.status = 405;
    }
  };
}
