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
  | Failure<CreatePlantErrorStatus>;

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
  /**
   * A bearer token the service accepts, or a function that returns one, called before every request
   * (so that an OAuth client can hand out a fresh access token when the old one expires).
   */
  readonly token: string | (() => string | Promise<string>);
  /** A fetch to use instead of the global one (tests, instrumentation). */
  readonly fetch?: typeof globalThis.fetch;
}

type GetPlantResponses = paths['/plants/{id}']['get']['responses'];
type DeletePlantResponses = paths['/plants/{id}']['delete']['responses'];
type ListPlantsResponses = paths['/plants']['get']['responses'];
/** Every failure status the service documents for GET /plants/{id}. */
export type GetPlantErrorStatus = Exclude<keyof GetPlantResponses, 200>;
/** Every failure status the service documents for DELETE /plants/{id}. */
export type DeletePlantErrorStatus = Exclude<keyof DeletePlantResponses, 204>;
/** Every failure status the service documents for GET /plants. */
export type ListPlantsErrorStatus = Exclude<keyof ListPlantsResponses, 200>;

/** A documented failure: its status, its Error body, and what its headers say. */
export interface Failure<Status extends number> {
  readonly ok: false;
  readonly status: Status;
  readonly error: ErrorBody;
  /** From Retry-After (503): seconds to wait before trying again. */
  readonly retryAfterSeconds?: number;
  /** From WWW-Authenticate (401). */
  readonly challenge?: string;
}

export type GetPlantResult =
  | { readonly ok: true; readonly status: 200; readonly plant: Plant }
  | Failure<GetPlantErrorStatus>;
export type DeletePlantResult = { readonly ok: true; readonly status: 204 } | Failure<DeletePlantErrorStatus>;

/** A page of a list failed with a documented status: thrown by the listPlants iterator. */
export class ListPlantsError extends Error {
  override readonly name = 'ListPlantsError';
  readonly failure: Failure<ListPlantsErrorStatus>;

  constructor(failure: Failure<ListPlantsErrorStatus>) {
    super(`listing plants failed with ${failure.status}: ${failure.error.message}`);
    this.failure = failure;
  }
}

export interface PlantStoreClient {
  /** POST /plants. Resolves with the plant or a documented failure; rejects only on network problems or undocumented answers. */
  createPlant(plant: NewPlant, init?: { readonly signal?: AbortSignal }): Promise<CreatePlantResult>;
  /** GET /plants/{id}: the plant (without its id), or a documented failure (404 when there is none). */
  getPlant(id: bigint, init?: { readonly signal?: AbortSignal }): Promise<GetPlantResult>;
  /** DELETE /plants/{id}: 204, or a documented failure (404 when there was none). */
  deletePlant(id: bigint, init?: { readonly signal?: AbortSignal }): Promise<DeletePlantResult>;
  /**
   * GET /plants, page after page, following `Link: rel="next"`: every plant with its exact id, in
   * ascending id order. `limit` is the page size (1 to 1000), `after` where to start. A documented
   * failure of a page throws ListPlantsError.
   */
  listPlants(query?: {
    readonly limit?: number;
    readonly after?: bigint;
    readonly signal?: AbortSignal;
  }): AsyncIterable<NewPlant>;
  /** The openapi-fetch client over the whole document, typed path by path, for what createPlant does not cover. */
  readonly http: Client<paths>;
}

const FAILURE_STATUSES: ReadonlySet<number> = new Set<CreatePlantErrorStatus>([
  400, 401, 403, 408, 409, 413, 415, 500, 503,
]);
const READ_FAILURE_STATUSES: ReadonlySet<number> = new Set<GetPlantErrorStatus | DeletePlantErrorStatus>([
  400, 401, 403, 404, 503,
]);

/** The failure a documented status and Error body make, with what the headers add. */
function failureOf<Status extends number>(response: Response, body: ErrorBody): Failure<Status> {
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const challenge = response.headers.get('www-authenticate');
  return {
    ok: false,
    status: response.status as Status,
    error: body,
    ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
    ...(challenge === null ? {} : { challenge }),
  };
}

// The next page's link, as the service writes it (RFC 8288): `</plants?limit=N&after=ID>; rel="next"`.
const NEXT_LINK = /<([^>]*)>\s*;\s*rel="?next"?/;

/** A listed plant as JSON gives it: its id a bigint beyond 2^53, a number below. */
type ListedPlant = Omit<NewPlant, 'id'> & { readonly id: bigint | number };

function isListedPlant(value: unknown): value is ListedPlant {
  const id = (value as { id?: unknown } | null)?.id;
  return isPlant(value) && (typeof id === 'bigint' || Number.isSafeInteger(id));
}

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
  const { token } = options;
  const authorization = async (): Promise<string> =>
    `Bearer ${typeof token === 'function' ? await token() : token}`;
  const http = createClient<paths>({
    baseUrl: options.baseUrl,
    bodySerializer: stringifyExactJson,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  // Every request of the openapi-fetch client carries the token as it is now.
  http.use({
    async onRequest({ request }) {
      request.headers.set('Authorization', await authorization());
      return request;
    },
  });
  const fetchOf = options.fetch ?? globalThis.fetch;

  /** One request, its body read as exact JSON (undefined when there is none or it is not JSON). */
  async function call(method: string, path: string, signal?: AbortSignal) {
    const response = await fetchOf(new URL(path, options.baseUrl), {
      method,
      headers: { Authorization: await authorization() },
      ...(signal === undefined ? {} : { signal }),
    });
    const text = await response.text();
    return { response, text, body: text === '' ? undefined : parseOrUndefined(text) };
  }

  return {
    http,
    async getPlant(id, init = {}) {
      const { response, text, body } = await call('GET', `/plants/${id}`, init.signal);
      if (response.status === 200 && isPlant(body)) return { ok: true, status: 200, plant: body };
      if (READ_FAILURE_STATUSES.has(response.status) && isErrorBody(body)) {
        return failureOf<GetPlantErrorStatus>(response, body);
      }
      throw new UnexpectedResponseError(response.status, text);
    },
    async deletePlant(id, init = {}) {
      const { response, text, body } = await call('DELETE', `/plants/${id}`, init.signal);
      if (response.status === 204) return { ok: true, status: 204 };
      if (READ_FAILURE_STATUSES.has(response.status) && isErrorBody(body)) {
        return failureOf<DeletePlantErrorStatus>(response, body);
      }
      throw new UnexpectedResponseError(response.status, text);
    },
    async *listPlants(query = {}) {
      const search = new URLSearchParams();
      if (query.limit !== undefined) search.set('limit', String(query.limit));
      if (query.after !== undefined) search.set('after', String(query.after));
      let next: string | undefined = `/plants${search.size > 0 ? `?${search}` : ''}`;
      while (next !== undefined) {
        const { response, text, body } = await call('GET', next, query.signal);
        if (response.status !== 200 || !Array.isArray(body) || !body.every(isListedPlant)) {
          if (response.status !== 200 && isErrorBody(body)) {
            throw new ListPlantsError(failureOf<ListPlantsErrorStatus>(response, body));
          }
          throw new UnexpectedResponseError(response.status, text);
        }
        // Every id a bigint, as NewPlant says, whatever its size.
        for (const plant of body) yield { ...plant, id: BigInt(plant.id) };
        next = NEXT_LINK.exec(response.headers.get('link') ?? '')?.[1];
      }
    },
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
        return failureOf<CreatePlantErrorStatus>(response, body);
      }
      throw new UnexpectedResponseError(response.status, text ?? JSON.stringify(error) ?? '');
    },
  };
}
