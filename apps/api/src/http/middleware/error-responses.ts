import { STATUS_CODES } from 'node:http';
import {
  InvalidParameterError,
  InvalidPlantError,
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StorageUnavailableError,
} from '@plant-store/domain';
import type { Context, Middleware } from 'koa';
import type { AppState } from '../app-state.ts';
import { HttpError, RETRY_LATER } from '../http-error.ts';

/** The one body of every failure: `{"error": <HTTP status>, "message": "..."}`. */
export interface ErrorBody {
  readonly error: number;
  readonly message: string;
}

interface Failure {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/**
 * Whether the process (EMFILE) or the system (ENFILE) is out of file descriptors, for this error or one
 * it wraps: opening a file or a connection failed, not the request. A passing state, as an outage is.
 */
function isOutOfDescriptors(error: unknown): boolean {
  let cause = error;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth += 1) {
    const { code } = cause as NodeJS.ErrnoException;
    if (code !== undefined && OUT_OF_DESCRIPTORS.has(code)) return true;
    cause = cause.cause;
  }
  return false;
}

/** The answer to a thrown error; the only place where errors become status codes. */
function toFailure(error: unknown): Failure {
  if (error instanceof HttpError)
    return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof InvalidPlantError) return { status: 400, message: error.message };
  if (error instanceof InvalidParameterError) return { status: 400, message: error.message };
  if (error instanceof PlantNotFoundError) return { status: 404, message: error.message };
  if (error instanceof PlantConflictError) return { status: 409, message: error.message };
  if (error instanceof PlantPreconditionFailedError) return { status: 412, message: error.message };
  if (error instanceof StorageUnavailableError) {
    return {
      status: 503,
      message: 'storage is unavailable, try again later',
      headers: RETRY_LATER,
    };
  }
  if (isOutOfDescriptors(error)) {
    return {
      status: 503,
      message: 'the service is unavailable, try again later',
      headers: RETRY_LATER,
    };
  }
  return { status: 500, message: 'internal server error' };
}

function describeMissingRoute(ctx: Context): string {
  if (ctx.status === 404) return `there is nothing at ${ctx.method} ${ctx.path}`;
  if (ctx.status === 405) return `${ctx.method} is not allowed here; allowed: ${ctx.response.get('Allow')}`;
  return (STATUS_CODES[ctx.status] ?? 'error').toLowerCase();
}

function answer(ctx: Context, status: number, message: string): void {
  ctx.status = status;
  ctx.body = { error: status, message } satisfies ErrorBody;
  // A body the client is still sending would otherwise have to be read and thrown away.
  if (!ctx.req.complete) ctx.set('Connection', 'close');
}

/**
 * Turns every failure into an `application/json` Error body: thrown errors (domain outcomes,
 * HttpErrors, anything unexpected as a 500 that leaks nothing) and the bodiless 404/405 that
 * Koa and the router leave behind.
 */
export function errorResponses(isShuttingDown: () => boolean = () => false): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null && ctx.status >= 400) answer(ctx, ctx.status, describeMissingRoute(ctx));
    } catch (error) {
      const failure = toFailure(error);
      // A handler may have put the underlying cause there already.
      if (failure.status >= 500) ctx.state.failure ??= error;
      for (const [name, value] of Object.entries(failure.headers ?? {})) ctx.set(name, value);
      answer(ctx, failure.status, failure.message);
    } finally {
      // While the server stops, every answer carries `Connection: close`, so that keep-alive clients go
      // elsewhere instead of sending their next request to a server that is going away. Decided after
      // the request is handled, so that requests already in flight when stopping began get it too.
      if (isShuttingDown()) ctx.set('Connection', 'close');
    }
  };
}
