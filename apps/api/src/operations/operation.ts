// What one entry of the table of operations says. The router (routes.ts) and the published document
// (openapi/openapi-document.ts) are both made from these entries, as fastify makes validation and
// @fastify/swagger's document from a route's `schema`: they cannot disagree.
import type { RouterContext } from '@koa/router';
import {
  InvalidParameterError,
  invalidParameter,
  type PlantRepository,
  type PlantStorage,
} from '@plant-store/domain';
import type { JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { CredentialChecker } from '../auth/credentials.ts';
import type { AppState } from '../http/app-state.ts';
import { parametersNotUtf8 } from '../http/query-utf8.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ErrorExamples } from './error-examples.ts';

/** Who may call an operation: a bearer token holding the read or the write scope, or anyone. */
export type Scope = 'read' | 'write' | 'none';

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The groups the operations are listed under; each is a router of its own (routes.ts). */
export type Tag = 'plants' | 'monitoring' | 'documentation';

/** A parameter as a URL carries it: text, which its valibot schema checks and converts. */
export interface Parameter<S extends v.GenericSchema = v.GenericSchema> {
  readonly description: string;
  readonly schema: S;
  /** What the operation takes when a query parameter is left out, for the document to say. */
  readonly default?: unknown;
}

export type Parameters = Readonly<Record<string, Parameter>>;

/**
 * A request body: its media type, which picks the reader (routes.ts), and the object schema the domain
 * checks it with. The reader builds only the schema's members: the others are ignored.
 */
export interface Body {
  readonly mediaType: 'application/json' | 'application/merge-patch+json';
  readonly schema: v.GenericSchema & { readonly entries: v.ObjectEntries };
}

/**
 * A request header the handler reads itself (a precondition), for the document to describe. Never
 * required, and never a 400: what the handler cannot read it treats as its description says.
 */
export interface RequestHeader {
  readonly name: string;
  readonly description: string;
  readonly schema: JsonSchema;
}

/** A header of an answer as OpenAPI writes it, or a reference to one of the document's components. */
export type Header =
  | { readonly description: string; readonly required: boolean; readonly schema: JsonSchema }
  | { readonly $ref: string };

/** What an answer carries. */
export interface Content {
  /** `application/json` when not said. */
  readonly mediaType?: string;
  /** A valibot schema; a JSON Schema only where none of the service's describes it (the document itself). */
  readonly schema: v.GenericSchema | JsonSchema;
  /** Real answers of the service (error-examples.ts). */
  readonly examples?: ErrorExamples;
}

export interface Answer {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header>>;
  /** None: an answer without a body (204, 304). */
  readonly body?: Content;
}

/** Answers by status. */
export type Answers = Readonly<Record<number, Answer>>;

/** What the handlers are made with. */
export interface OperationDeps {
  /** The plants; each first creation is counted (see after-create.ts). */
  readonly plants: PlantRepository;
  readonly storage: PlantStorage;
  readonly credentials: CredentialChecker;
  /** True once the server has begun to stop. */
  readonly isShuttingDown: () => boolean;
  readonly metrics: Metrics;
  /** The published document's text. */
  readonly openApiDocument: string;
}

type Values<P extends Parameters> = { readonly [K in keyof P]: v.InferOutput<P[K]['schema']> };
// A query parameter left out is absent, never `undefined` (valibot's object leaves it out).
type OptionalValues<P extends Parameters> = { readonly [K in keyof P]?: v.InferOutput<P[K]['schema']> };

/** A request as its handler is given it, once its credential and its parameters are checked. */
export interface Input<P extends Parameters, Q extends Parameters> {
  readonly params: Values<P>;
  /** The query parameters given; the others are ignored. */
  readonly query: OptionalValues<Q>;
  /** The body as its reader built it: the domain checks its fields. */
  readonly body: unknown;
}

export type OperationContext = RouterContext<AppState>;

export type Handler<I> = (ctx: OperationContext, input: I) => Promise<void> | void;

type NoParameters = Readonly<Record<never, Parameter>>;

export interface OperationSpec<P extends Parameters = NoParameters, Q extends Parameters = NoParameters> {
  readonly method: Method;
  /** As OpenAPI writes it (`/things/{id}`); the router's pattern (`/things/:id`) is made from it. */
  readonly path: `/${string}`;
  readonly operationId: string;
  readonly tags: readonly [Tag];
  readonly summary: string;
  readonly description?: string;
  readonly scope: Scope;
  readonly params?: P;
  readonly query?: Q;
  /** The request headers its handler reads. */
  readonly headers?: readonly RequestHeader[];
  readonly body?: Body;
  /** It reads or writes the plants, so it answers 503 while storage is unavailable. */
  readonly storage?: boolean;
  /** Served, but not an operation of the published interface (the reference page's own files). */
  readonly hidden?: boolean;
  /**
   * Its own answers. Those its description implies are added by answers.ts (a scope: 401 and 403; a
   * parameter: 400; a body: 408, 413, 415; storage: 503); an answer of its own replaces one of those.
   */
  readonly responses: Answers;
  readonly handler: (deps: OperationDeps) => Handler<Input<P, Q>>;
}

/** An entry of the table, its parameters' types forgotten: routes.ts reads them as their schemas say. */
export type Operation = OperationSpec<Parameters, Parameters>;

/** One operation of the table, its handler typed by its parameters. */
export function defineOperation<P extends Parameters = NoParameters, Q extends Parameters = NoParameters>(
  spec: OperationSpec<P, Q>,
): Operation {
  const named = [...spec.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
  const declared = Object.keys(spec.params ?? {}).sort();
  if (named.join() !== declared.join())
    throw new Error(`${spec.operationId}: ${spec.path} names {${named}}, its params are {${declared}}`);
  // Sound: parametersReader gives the handler exactly what P's and Q's schemas output.
  return spec as unknown as Operation;
}

/** The router's pattern of an OpenAPI path: `/things/{id}` is `/things/:id`. */
export function routerPathOf(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

function objectOf(
  parameters: Parameters | undefined,
  entry: (schema: v.GenericSchema) => v.GenericSchema,
): v.GenericSchema | undefined {
  if (parameters === undefined) return undefined;
  return v.object(
    Object.fromEntries(Object.entries(parameters).map(([name, { schema }]) => [name, entry(schema)])),
  );
}

function checked(schema: v.GenericSchema, value: unknown, where: string): Readonly<Record<string, unknown>> {
  const result = v.safeParse(schema, value, { abortPipeEarly: true });
  if (!result.success) throw invalidParameter(result.issues, where);
  return result.output as Readonly<Record<string, unknown>>;
}

const REPLACED = '\uFFFD';
const NOT_UTF8 = 'must be UTF-8 once percent-decoded';

/** Refuses a query parameter of `names` that URLSearchParams repaired (see query-utf8.ts). */
function refuseRepaired(ctx: OperationContext, names: readonly string[]): void {
  const repaired = names.filter((name) => {
    const value = ctx.query[name];
    return Array.isArray(value) ? value.some((item) => item.includes(REPLACED)) : value?.includes(REPLACED);
  });
  if (repaired.length === 0) return;
  const notUtf8 = parametersNotUtf8(ctx.querystring);
  const issues = repaired.filter((name) => notUtf8.has(name)).map((field) => ({ field, problem: NOT_UTF8 }));
  if (issues.length > 0) throw new InvalidParameterError(issues);
}

/**
 * Reads an operation's parameters from its request, path then query, each by its schema: the values, or
 * the domain's InvalidParameterError naming each bad one. Query parameters are optional; others are
 * ignored; one whose value is not UTF-8 once percent-decoded is refused, never read repaired.
 */
export function parametersReader(
  operation: Operation,
): (ctx: OperationContext) => Pick<Input<Parameters, Parameters>, 'params' | 'query'> {
  const path = objectOf(operation.params, (schema) => schema);
  const query = objectOf(operation.query, (schema) => v.optional(schema));
  const queryNames = Object.keys(operation.query ?? {});
  return (ctx) => {
    const params = path === undefined ? NONE : checked(path, ctx.params, 'path');
    if (query === undefined) return { params, query: NONE };
    refuseRepaired(ctx, queryNames);
    return { params, query: checked(query, ctx.query, 'query') };
  };
}
