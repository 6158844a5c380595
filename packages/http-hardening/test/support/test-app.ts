import Koa from 'koa';
import { checkRequestHead, type JsonBodyState, jsonBody } from '../../src/index.ts';

/** A request's size limit in the test app: small, so that a test need not send much to pass it. */
export const BODY_LIMIT = 64;

/** Bigints written as `{"bigint": "<digits>"}`, so that an answer shows a value was one, and exactly which. */
function withBigints(value: unknown): string {
  return JSON.stringify(value, (_name, item: unknown) =>
    typeof item === 'bigint' ? { bigint: item.toString() } : item,
  );
}

export interface TestApp {
  readonly app: Koa<JsonBodyState>;
  /** The paths of the requests the app began, in the order it began them. */
  readonly started: string[];
  /** Resolves once a request for `path` has begun. */
  begun(path: string): Promise<void>;
  /** Lets the requests for /wait go on (they wait until then). */
  release(): void;
  /** A buffer of `bytes` answered at GET /large, and performance.now() when the last one was handed to Koa. */
  readonly large: { readonly bytes: number; answeredAt: number };
}

/**
 * A minimal Koa app of the kind the package is for, with Koa's own error handler: the head checked for
 * every request, POST /echo reading a JSON body (members id and name) and answering it, PATCH /echo the
 * same of a merge patch (member name), GET /wait held
 * until the test releases it, GET /large answering 32 MB, anything else a small JSON answer.
 */
export function testApp(): TestApp {
  const started: string[] = [];
  const waiters: { readonly path: string; readonly resolve: () => void }[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const large = { bytes: 32 * 1024 * 1024, answeredAt: 0 };
  const largeBody = Buffer.alloc(large.bytes, 'x');

  const app = new Koa<JsonBodyState>();
  app.use(async (ctx, next) => {
    started.push(ctx.path);
    for (const waiter of waiters.filter((candidate) => candidate.path === ctx.path)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    await next();
  });
  app.use(checkRequestHead());
  const echo = jsonBody({ limit: BODY_LIMIT, members: ['id', 'name'] });
  const mergePatch = jsonBody({
    limit: BODY_LIMIT,
    members: ['name'],
    mediaType: 'application/merge-patch+json',
  });
  app.use(async (ctx) => {
    if ((ctx.method === 'POST' || ctx.method === 'PATCH') && ctx.path === '/echo') {
      await (ctx.method === 'POST' ? echo : mergePatch)(ctx, async () => {});
      ctx.type = 'application/json';
      ctx.body = withBigints(ctx.state.body);
      return;
    }
    if (ctx.path === '/wait') await released;
    if (ctx.path === '/large') {
      ctx.body = largeBody;
      large.answeredAt = performance.now();
      return;
    }
    ctx.body = { path: ctx.path };
  });
  return {
    app,
    started,
    begun: (path) =>
      started.includes(path) ? Promise.resolve() : new Promise((resolve) => waiters.push({ path, resolve })),
    release,
    large,
  };
}
