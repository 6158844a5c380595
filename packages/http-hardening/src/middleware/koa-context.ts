import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What this package's middleware read of Koa's context. Every Koa `ctx` has it, so the middleware take
 * no Koa type: `app.use()` of any Koa app accepts them, and users need no `@types/koa` for this package.
 */
export interface KoaContext<State = unknown> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  set(field: string, value: string): void;
  state: State;
}

/** A Koa middleware, as this package's middleware are typed. */
export type KoaMiddleware<State = unknown> = (
  ctx: KoaContext<State>,
  next: () => Promise<unknown>,
) => Promise<void>;
