import type { Middleware } from 'koa';
import type { AppState } from './app-state.ts';

/**
 * The app's routes: a path spelled exactly as the contract spells it (case and trailing slash
 * count), or one whose last segment is a parameter (`/plants/:id`). A known path asked with a
 * method it does not serve answers 405 with `Allow` (OPTIONS too: the published document has no
 * OPTIONS operation, and `Allow` says the same), and an unknown path is left to the next middleware
 * (error-responses.ts answers the 404). HEAD is served wherever GET is (Koa sends no body).
 *
 * Why not @koa/router: it matched every route's pattern and composed the matched layers anew on every
 * request, 27,000 machine instructions a create (9% of the service's own work, counted under
 * callgrind), more than any other step. Here a request costs one Map lookup (or a prefix test per
 * parameter route), and each route's middleware is chained once, when it is declared.
 */
export interface Router {
  get(path: string, ...middleware: Middleware<AppState>[]): Router;
  post(path: string, ...middleware: Middleware<AppState>[]): Router;
  delete(path: string, ...middleware: Middleware<AppState>[]): Router;
  /** The middleware that dispatches to the routes declared so far, and to those declared later. */
  routes(): Middleware<AppState>;
}

interface Route {
  readonly pattern: string;
  /** The handler of each method, in the order they were declared (HEAD before GET). */
  readonly methods: Map<string, Middleware<AppState>>;
  /** The `Allow` header: the methods, comma-separated, as declared. */
  allow: string;
}

interface ParameterRoute extends Route {
  /** The path up to the parameter, e.g. `/plants/`. */
  readonly prefix: string;
  readonly parameter: string;
}

/** Each middleware in turn, each one's `next` the one after it, the last one's the router's own `next`. */
function chain(middleware: readonly Middleware<AppState>[]): Middleware<AppState> {
  return middleware.reduceRight<Middleware<AppState>>(
    (after, current) => (ctx, next) => current(ctx, () => after(ctx, next)),
    (_ctx, next) => next(),
  );
}

/** A path parameter as the client meant it: percent-decoded, or as sent when that is not valid. */
function decodeParameter(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const PARAMETER = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

export function createRouter(): Router {
  const exact = new Map<string, Route>();
  const withParameter: ParameterRoute[] = [];

  const routeFor = (pattern: string): Route => {
    if (!pattern.startsWith('/')) throw new Error(`a route's path starts with /: ${pattern}`);
    const known = exact.get(pattern) ?? withParameter.find((route) => route.pattern === pattern);
    if (known !== undefined) return known;
    const lastSlash = pattern.lastIndexOf('/');
    const prefix = pattern.slice(0, lastSlash + 1);
    const parameter = PARAMETER.exec(pattern.slice(lastSlash + 1))?.[1];
    if (prefix.includes(':'))
      throw new Error(`only the last segment of a route may be a parameter: ${pattern}`);
    if (parameter === undefined) {
      const route: Route = { pattern, methods: new Map(), allow: '' };
      exact.set(pattern, route);
      return route;
    }
    const route: ParameterRoute = { pattern, methods: new Map(), allow: '', prefix, parameter };
    withParameter.push(route);
    return route;
  };

  const declare = (methods: readonly string[], path: string, middleware: Middleware<AppState>[]): void => {
    if (middleware.length === 0) throw new Error(`no middleware for ${methods.join(', ')} ${path}`);
    const route = routeFor(path);
    const handler = chain(middleware);
    for (const method of methods) {
      if (route.methods.has(method)) throw new Error(`${method} ${path} is declared twice`);
      route.methods.set(method, handler);
    }
    route.allow = [...route.methods.keys()].join(', ');
  };

  /** The route of a path and its parameter, if any: a parameter is one non-empty segment. */
  const match = (path: string): { route: Route; parameter?: [string, string] } | undefined => {
    const route = exact.get(path);
    if (route !== undefined) return { route };
    for (const candidate of withParameter) {
      const { prefix } = candidate;
      if (path.length > prefix.length && path.startsWith(prefix) && !path.includes('/', prefix.length)) {
        return {
          route: candidate,
          parameter: [candidate.parameter, decodeParameter(path.slice(prefix.length))],
        };
      }
    }
    return undefined;
  };

  const router: Router = {
    get(path, ...middleware) {
      declare(['HEAD', 'GET'], path, middleware);
      return router;
    },
    post(path, ...middleware) {
      declare(['POST'], path, middleware);
      return router;
    },
    delete(path, ...middleware) {
      declare(['DELETE'], path, middleware);
      return router;
    },
    routes() {
      return (ctx, next) => {
        const found = match(ctx.path);
        if (found === undefined) return next();
        const { route, parameter } = found;
        ctx.state.route = route.pattern;
        const handler = route.methods.get(ctx.method);
        if (handler !== undefined) {
          if (parameter !== undefined) ctx.state.params = { [parameter[0]]: parameter[1] };
          return handler(ctx, next);
        }
        // No body: error-responses.ts answers the JSON 405, naming what Allow says.
        ctx.set('Allow', route.allow);
        ctx.status = 405;
        return undefined;
      };
    },
  };
  return router;
}
