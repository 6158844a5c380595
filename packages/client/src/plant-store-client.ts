import createClient, { type Client } from 'openapi-fetch';
import { parseExactJson, stringifyExactJson } from './exact-json.ts';
import type { components, paths } from './generated/openapi.ts';

export type NewPlant = components['schemas']['NewPlant'];
export type Plant = components['schemas']['Plant'];
/** The body of a replacement (PUT): a Plant; an `id`, if sent, must be the plant's. */
export type PlantReplacement = components['schemas']['PlantReplacement'];
/** A JSON merge patch of a plant (PATCH): `name` replaces the name, `tag` sets the tag, `null` removes it. */
export type PlantMergePatch = components['schemas']['PlantMergePatch'];
/** The body of every failure: `{"error": <HTTP status>, "message": "..."}`. */
export type ErrorBody = components['schemas']['Error'];

type CreatePlantResponses = paths['/plants']['post']['responses'];
/** Every failure status the service documents for POST /plants. */
export type CreatePlantErrorStatus = Exclude<keyof CreatePlantResponses, 200>;

/**
 * A plant as an answer carries it, with its ETag: the strong entity-tag of its content, to send back as
 * `ifMatch` (change it only as read) or `ifNoneMatch` (read it only when it changed).
 */
export interface PlantAnswer {
  readonly ok: true;
  readonly status: 200;
  readonly plant: Plant;
  readonly etag: string;
}

/** The answer to a create: the plant, or a documented failure with its typed status and body. */
export type CreatePlantResult = PlantAnswer | Failure<CreatePlantErrorStatus>;

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
type ReplacePlantResponses = paths['/plants/{id}']['put']['responses'];
type PatchPlantResponses = paths['/plants/{id}']['patch']['responses'];
type DeletePlantResponses = paths['/plants/{id}']['delete']['responses'];
type ListPlantsResponses = paths['/plants']['get']['responses'];
/** Every failure status the service documents for GET /plants/{id}. */
export type GetPlantErrorStatus = Exclude<keyof GetPlantResponses, 200 | 304>;
/** Every failure status the service documents for PUT /plants/{id}. */
export type ReplacePlantErrorStatus = Exclude<keyof ReplacePlantResponses, 200>;
/** Every failure status the service documents for PATCH /plants/{id}. */
export type PatchPlantErrorStatus = Exclude<keyof PatchPlantResponses, 200>;
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

/** 304: the plant still has the ETag `ifNoneMatch` named; no body. */
export interface NotModified {
  readonly ok: true;
  readonly status: 304;
  readonly etag: string;
}

export type GetPlantResult = PlantAnswer | NotModified | Failure<GetPlantErrorStatus>;
export type ReplacePlantResult = PlantAnswer | Failure<ReplacePlantErrorStatus>;
export type PatchPlantResult = PlantAnswer | Failure<PatchPlantErrorStatus>;
export type DeletePlantResult = { readonly ok: true; readonly status: 204 } | Failure<DeletePlantErrorStatus>;

/** What a request may add: a signal to abort it. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

/**
 * A change under a precondition: `ifMatch` is an ETag the service gave (quotes included), several
 * comma-separated, or `*` (any plant that exists). Without a match, or without a plant, the change is
 * refused with 412 and nothing changes; the comparison and the write are one atomic step.
 */
export interface ConditionalOptions extends RequestOptions {
  readonly ifMatch?: string;
}

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
  /** POST /plants. Resolves with the plant and its ETag or a documented failure; rejects only on network problems or undocumented answers. */
  createPlant(plant: NewPlant, init?: RequestOptions): Promise<CreatePlantResult>;
  /**
   * GET /plants/{id}: the plant (without its id) and its ETag, or a documented failure (404 when there is
   * none). With `ifNoneMatch` (an ETag held, or several), 304 while the plant still has it.
   */
  getPlant(id: bigint, init?: RequestOptions & { readonly ifNoneMatch?: string }): Promise<GetPlantResult>;
  /**
   * PUT /plants/{id}: replaces the plant's name and tag (a tag left out is removed); never creates one
   * (404). Resolves with the plant as stored and its new ETag, or a documented failure (412 under `ifMatch`).
   */
  replacePlant(id: bigint, plant: PlantReplacement, init?: ConditionalOptions): Promise<ReplacePlantResult>;
  /**
   * PATCH /plants/{id} with a JSON merge patch: the members given change, the others stay (`tag: null`
   * removes the tag). Resolves as replacePlant does.
   */
  patchPlant(id: bigint, patch: PlantMergePatch, init?: ConditionalOptions): Promise<PatchPlantResult>;
  /** DELETE /plants/{id}: 204, or a documented failure (404 when there was none; 412 under `ifMatch`). */
  deletePlant(id: bigint, init?: ConditionalOptions): Promise<DeletePlantResult>;
  /**
   * GET /plants, page after page, following `Link: rel="next"`: every plant with its exact id, in
   * ascending id order. `limit` is the page size (1 to 1000), `after` where to start, `tag` the exact
   * tag of the plants listed (`''` the empty tag). A documented failure of a page throws ListPlantsError.
   */
  listPlants(query?: {
    readonly limit?: number;
    readonly after?: bigint;
    readonly tag?: string;
    readonly signal?: AbortSignal;
  }): AsyncIterable<NewPlant>;
  /** The openapi-fetch client over the whole document, typed path by path, for what createPlant does not cover. */
  readonly http: Client<paths>;
}

const FAILURE_STATUSES: ReadonlySet<number> = new Set<CreatePlantErrorStatus>([
  400, 401, 403, 408, 409, 413, 415, 500, 503,
]);
const READ_FAILURE_STATUSES: ReadonlySet<number> = new Set<GetPlantErrorStatus>([400, 401, 403, 404, 503]);

/** The statuses of a record that names each one: the compiler then checks that none is missing. */
const statuses = <Status extends number>(all: Record<Status, true>): ReadonlySet<number> =>
  new Set(Object.keys(all).map(Number));
const DELETE_FAILURE_STATUSES = statuses<DeletePlantErrorStatus>({
  400: true,
  401: true,
  403: true,
  404: true,
  412: true,
  503: true,
});
const CHANGE_FAILURE_STATUSES = statuses<ReplacePlantErrorStatus | PatchPlantErrorStatus>({
  400: true,
  401: true,
  403: true,
  404: true,
  408: true,
  412: true,
  413: true,
  415: true,
  503: true,
});

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

// The next page's link, as the service writes it (RFC 8288): `</plants?limit=N&after=ID>; rel="next"`,
// with `&tag=T` when listing by tag.
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
  async function call(
    method: string,
    path: string,
    signal?: AbortSignal,
    headers: Readonly<Record<string, string | undefined>> = {},
    body?: string,
  ) {
    const sent: Record<string, string> = { Authorization: await authorization() };
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
    const response = await fetchOf(new URL(path, options.baseUrl), {
      method,
      headers: sent,
      ...(body === undefined ? {} : { body }),
      ...(signal === undefined ? {} : { signal }),
    });
    const text = await response.text();
    return { response, text, body: text === '' ? undefined : parseOrUndefined(text) };
  }

  /** A plant with its ETag, a documented failure, or UnexpectedResponseError. */
  function plantOr<Status extends number>(
    { response, text, body }: Awaited<ReturnType<typeof call>>,
    failures: ReadonlySet<number>,
  ): PlantAnswer | Failure<Status> {
    const etag = response.headers.get('etag');
    if (response.status === 200 && isPlant(body) && etag !== null)
      return { ok: true, status: 200, plant: body, etag };
    if (failures.has(response.status) && isErrorBody(body)) return failureOf<Status>(response, body);
    throw new UnexpectedResponseError(response.status, text);
  }

  /** PUT or PATCH of one plant, under `ifMatch` when given. */
  async function change<Status extends number>(
    method: 'PUT' | 'PATCH',
    id: bigint,
    content: PlantReplacement | PlantMergePatch,
    init: ConditionalOptions,
  ): Promise<PlantAnswer | Failure<Status>> {
    const answer = await call(
      method,
      `/plants/${id}`,
      init.signal,
      {
        'Content-Type': method === 'PUT' ? 'application/json' : 'application/merge-patch+json',
        'If-Match': init.ifMatch,
      },
      stringifyExactJson(content),
    );
    return plantOr<Status>(answer, CHANGE_FAILURE_STATUSES);
  }

  return {
    http,
    async getPlant(id, init = {}) {
      const answer = await call('GET', `/plants/${id}`, init.signal, { 'If-None-Match': init.ifNoneMatch });
      const etag = answer.response.headers.get('etag');
      if (answer.response.status === 304 && etag !== null) return { ok: true, status: 304, etag };
      return plantOr<GetPlantErrorStatus>(answer, READ_FAILURE_STATUSES);
    },
    replacePlant: (id, plant, init = {}) => change<ReplacePlantErrorStatus>('PUT', id, plant, init),
    patchPlant: (id, patch, init = {}) => change<PatchPlantErrorStatus>('PATCH', id, patch, init),
    async deletePlant(id, init = {}) {
      const { response, text, body } = await call('DELETE', `/plants/${id}`, init.signal, {
        'If-Match': init.ifMatch,
      });
      if (response.status === 204) return { ok: true, status: 204 };
      if (DELETE_FAILURE_STATUSES.has(response.status) && isErrorBody(body)) {
        return failureOf<DeletePlantErrorStatus>(response, body);
      }
      throw new UnexpectedResponseError(response.status, text);
    },
    async *listPlants(query = {}) {
      const search = new URLSearchParams();
      if (query.limit !== undefined) search.set('limit', String(query.limit));
      if (query.after !== undefined) search.set('after', String(query.after));
      if (query.tag !== undefined) search.set('tag', query.tag);
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
      const etag = response.headers.get('etag');
      if (response.status === 200 && isPlant(body) && etag !== null)
        return { ok: true, status: 200, plant: body, etag };
      if (FAILURE_STATUSES.has(response.status) && isErrorBody(body)) {
        return failureOf<CreatePlantErrorStatus>(response, body);
      }
      throw new UnexpectedResponseError(response.status, text ?? JSON.stringify(error) ?? '');
    },
  };
}
