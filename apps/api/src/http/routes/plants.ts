import type { RouterMiddleware } from '@koa/router';
import {
  createPlant,
  DEFAULT_PAGE_LIMIT,
  deletePlant,
  getPlant,
  listPlants,
  type NewPlant,
  NewPlantObjectSchema,
  type PlantPage,
  type PlantRepository,
} from '@plant-store/domain';
import type { Middleware } from 'koa';
import type { AppState } from '../app-state.ts';
import { jsonStringBound, stringifyBoundedArray } from '../json/bounded-array.ts';
import { parseListPlantsParameters } from '../params/list-plants-parameters.ts';
import { parsePlantIdParameter } from '../params/plant-id-parameter.ts';

/**
 * The members of a NewPlant the domain reads, taken from its schema. The body reader builds these
 * alone: the others are ignored (DESIGN.md), and building thousands of them cost far more than
 * the rest of a request.
 */
export const NEW_PLANT_MEMBERS: ReadonlySet<string> = new Set(Object.keys(NewPlantObjectSchema.entries));

/**
 * A JSON answer, its type set as a header: `ctx.body = object` has Koa look the type up in its mime
 * table on every answer, then stringify it (~1.5 us a request in the profile).
 */
function answerJson(ctx: Parameters<Middleware<AppState>>[0], text: string): void {
  ctx.status = 200;
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = text;
}

/** POST /plants, after the credential and the body are checked: creates the plant, answers it without its id. */
export function createPlantHandler(plants: PlantRepository): Middleware<AppState> {
  return async (ctx) => {
    // A retry of a stored plant (created: false) answers just like the first creation did.
    const { plant } = await createPlant({ plants }, ctx.state.body);
    answerJson(ctx, JSON.stringify(plant));
  };
}

/** GET (and HEAD) /plants/{id}: the plant stored under the id, without its id, or 404. */
export function getPlantHandler(plants: PlantRepository): RouterMiddleware<AppState> {
  return async (ctx) => {
    const id = parsePlantIdParameter(ctx.params.id);
    answerJson(ctx, JSON.stringify(await getPlant({ plants }, id)));
  };
}

/** The link to the page after this one, as RFC 8288 writes it (DESIGN.md: `</plants?limit=N&after=LAST>; rel="next"`). */
function nextPageLink(next: PlantPage['next']): string | undefined {
  return next === undefined ? undefined : `</plants?limit=${next.limit}&after=${next.after}>; rel="next"`;
}

/** DESIGN.md: a list page's body takes at most 1 MiB, but holds one plant whatever its size. */
export const PAGE_BODY_MAX_BYTES = 1024 * 1024;

// `{"id":` and up to 20 digits, `,"name":`, `,"tag":`, `}` and the comma after it, with room to spare.
const PLANT_JSON_OVERHEAD = 64;

function plantJsonBound(plant: NewPlant): number {
  return (
    PLANT_JSON_OVERHEAD +
    jsonStringBound(plant.name) +
    (plant.tag === undefined ? 0 : jsonStringBound(plant.tag))
  );
}

/**
 * GET (and HEAD) /plants?limit=&after=: a page of plants with their ids, ascending; `Link: rel="next"`
 * while more remain. Ids are written as exact JSON integers, whatever their size. The storage reads no
 * more than the body's budget of names and tags; JSON escaping may still make them longer, so the body
 * ends before the plant that would pass it, and the next page starts after the last one written.
 */
export function listPlantsHandler(plants: PlantRepository): Middleware<AppState> {
  return async (ctx) => {
    const query = parseListPlantsParameters(ctx.query);
    const page = await listPlants({ plants }, query, { maxBytes: PAGE_BODY_MAX_BYTES });
    const body = stringifyBoundedArray(page.plants, PAGE_BODY_MAX_BYTES, plantJsonBound);
    const last = page.plants[body.count - 1];
    const next =
      body.count < page.plants.length && last !== undefined
        ? { limit: query.limit ?? DEFAULT_PAGE_LIMIT, after: last.id }
        : page.next;
    const link = nextPageLink(next);
    if (link !== undefined) ctx.set('Link', link);
    answerJson(ctx, body.text);
  };
}

/** DELETE /plants/{id}: 204 when a plant was deleted (its id is free again), 404 when there was none. */
export function deletePlantHandler(plants: PlantRepository): RouterMiddleware<AppState> {
  return async (ctx) => {
    await deletePlant({ plants }, parsePlantIdParameter(ctx.params.id));
    ctx.status = 204;
  };
}
