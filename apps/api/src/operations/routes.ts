// The @koa/router routes, made from the table of operations: a router per resource, as koajs/router's
// recipes mount them, each route's bearer check, parameters and body reader taken from its description.
import { METHODS } from 'node:http';
import Router, { type RouterMiddleware, type RouterOptions } from '@koa/router';
import { jsonBody, type KoaMiddleware } from '@plant-store/http-hardening';
import compose from 'koa-compose';
import type { AppState } from '../http/app-state.ts';
import { bearerAuth } from '../http/middleware/bearer-auth.ts';
import {
  type Body,
  type Operation,
  type OperationDeps,
  parametersReader,
  routerPathOf,
} from './operation.ts';

export interface RoutesDeps extends OperationDeps {
  /** The largest request body, in bytes. */
  readonly bodyLimit: number;
}

// Paths match exactly as the contract spells them: /Plants and /plants/ are not /plants. Every method
// Node parses is one the router knows, so a wrong one on a known path is 405 with Allow, never 501;
// and one route runs per request, the most specific, as OpenAPI matches paths.
const ROUTER_OPTIONS = {
  methods: METHODS,
  strict: true,
  sensitive: true,
  exclusive: 'specificity',
} satisfies RouterOptions;

/**
 * The reader of a body: JSON of its media type (a merge patch is JSON too), of which it builds the
 * schema's members; it puts what it read in `ctx.state.body`.
 */
const bodyReader = ({ mediaType, schema }: Body, limit: number): KoaMiddleware<AppState> =>
  jsonBody({ limit, members: Object.keys(schema.entries), mediaType });

/**
 * An operation's middleware, composed once into the one the router is given: @koa/router composes a
 * route's list anew on every request, and koa-compose flattens it with an Array concat per entry.
 * DESIGN.md's order: credential (401), scope (403), parameters (400), media type (415), size (413),
 * JSON and fields (400), then the handler and its storage.
 */
function route(operation: Operation, deps: RoutesDeps): RouterMiddleware<AppState> {
  const { scope, body } = operation;
  const { credentials } = deps;
  const handle = operation.handler(deps);
  const readParameters = parametersReader(operation);
  const steps: RouterMiddleware<AppState>[] = [];
  if (scope !== 'none') steps.push(bearerAuth(credentials, credentials.scopes[scope]));
  if (body === undefined) {
    steps.push((ctx) => handle(ctx, { ...readParameters(ctx), body: undefined }));
  } else {
    const readBody = bodyReader(body, deps.bodyLimit);
    steps.push(async (ctx) => {
      const parameters = readParameters(ctx);
      await readBody(ctx, async () => handle(ctx, { ...parameters, body: ctx.state.body }));
    });
  }
  return steps.length === 1 ? (steps[0] as RouterMiddleware<AppState>) : compose(steps);
}

/**
 * The routes of the operations, HEAD served wherever GET is (Koa sends no body). Each route is named by
 * its OpenAPI path, which a request's span takes as its route (see request-metrics.ts).
 */
export function operationsRouter(operations: readonly Operation[], deps: RoutesDeps): Router<AppState> {
  const router = new Router<AppState>(ROUTER_OPTIONS);
  for (const resource of Map.groupBy(operations, (operation) => operation.tags[0]).values()) {
    const resourceRouter = new Router<AppState>(ROUTER_OPTIONS);
    for (const operation of resource) {
      resourceRouter.register(routerPathOf(operation.path), [operation.method], route(operation, deps), {
        name: operation.path,
      });
    }
    router.use(resourceRouter.routes());
  }
  return router;
}

/**
 * @koa/router's `allowedMethods()`: a known path asked with a method it does not serve gets 405 and
 * `Allow` (error-responses.ts writes the JSON body). OPTIONS too: the router would answer it 200 with an
 * empty body, which the published document, having no OPTIONS operation, does not describe.
 */
export function methodNotAllowed(router: Router<AppState>): RouterMiddleware<AppState> {
  const allowedMethods = router.allowedMethods();
  return async (ctx, next) => {
    await allowedMethods(ctx, next);
    if (ctx.method === 'OPTIONS' && ctx.status === 200) {
      ctx.body = undefined;
      ctx.status = 405;
    }
  };
}
