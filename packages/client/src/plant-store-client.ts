import createClient, { type Client } from 'openapi-fetch';
import { parseExactJson, stringifyExactJson } from './exact-json.ts';
import type { components, paths } from './generated/openapi.ts';

export type NewPlant = components['schemas']['NewPlant'];
export type Plant = components['schemas']['Plant'];
/** The body of every failure: `{"error": <HTTP status>, "message": "..."}`. */
export type ErrorBody = components['schemas']['Error'];

type CreatePlantResponses = paths['/plants']['post']['responses'];
/** Every failure status the service documents for POST /plants. */
export type CreatePlantErrorStatus = Exclude<keyof CreatePlantResponses, 200>;

/** The answer to a create: the plant, or a documented failure with its typed status and body. */
export type CreatePlantResult =
  | { readonly ok: true; readonly status: 200; readonly plant: Plant }
  | {
      readonly ok: false;
      readonly status: CreatePlantErrorStatus;
      readonly error: ErrorBody;
      /** From Retry-After (503): seconds to wait before trying again. */
      readonly retryAfterSeconds?: number;
      /** From WWW-Authenticate (401). */
      readonly challenge?: string;
    };

/** The service answered something its document does not describe (a proxy in between, a wrong base URL). */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  readonly status: number;
  readonly body: string;

  constructor(status: number, body: string) {
    super(`the Plant Store answered ${status}, which its document does not describe: ${body.slice(0, 200)}`);
    this.status = status;
    this.body = body;
  }
}

export interface PlantStoreClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:3000`. */
  readonly baseUrl: string;
  /** A bearer token the service accepts. */
  readonly token: string;
  /** A fetch to use instead of the global one (tests, instrumentation). */
  readonly fetch?: typeof globalThis.fetch;
}

export interface PlantStoreClient {
  /** POST /plants. Resolves with the plant or a documented failure; rejects only on network problems or undocumented answers. */
  createPlant(plant: NewPlant, init?: { readonly signal?: AbortSignal }): Promise<CreatePlantResult>;
  /** The openapi-fetch client over the whole document, typed path by path, for what createPlant does not cover. */
  readonly http: Client<paths>;
}

const FAILURE_STATUSES: ReadonlySet<number> = new Set<CreatePlantErrorStatus>([
  400, 401, 408, 409, 413, 415, 500, 503,
]);

function isErrorBody(value: unknown): value is ErrorBody {
  const body = value as Partial<ErrorBody> | null;
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.error === 'number' &&
    typeof body.message === 'string'
  );
}

function isPlant(value: unknown): value is Plant {
  const body = value as Partial<Plant> | null;
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.name === 'string' &&
    (body.tag === undefined || typeof body.tag === 'string')
  );
}

function parseOrUndefined(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    return undefined;
  }
}

/** A typed client for the Plant Store, with exact int64 ids (bigints) both ways. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const http = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    bodySerializer: stringifyExactJson,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return {
    http,
    async createPlant(plant, init = {}) {
      // A success is read here, with exact integers; openapi-fetch reads a failure's JSON itself
      // (an Error body holds only an int32 and a string).
      const { data, error, response } = await http.POST('/plants', {
        body: plant,
        parseAs: 'stream',
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
      const text = response.ok ? await new Response(data).text() : undefined;
      const body: unknown = text === undefined ? error : parseOrUndefined(text);
      if (response.status === 200 && isPlant(body)) return { ok: true, status: 200, plant: body };
      if (FAILURE_STATUSES.has(response.status) && isErrorBody(body)) {
        const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
        const challenge = response.headers.get('www-authenticate');
        return {
          ok: false,
          status: response.status as CreatePlantErrorStatus,
          error: body,
          ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
          ...(challenge === null ? {} : { challenge }),
        };
      }
      throw new UnexpectedResponseError(response.status, text ?? JSON.stringify(error) ?? '');
    },
  };
}
