import { createPlant, NewPlantSchema, type PlantRepository } from '@plant-store/domain';
import type { Middleware } from 'koa';
import type { AppState } from '../app-state.ts';

/**
 * The members of a NewPlant the domain reads, taken from its schema. The body reader builds these
 * alone: the others are ignored (DESIGN.md), and building thousands of them cost far more than
 * the rest of a request.
 */
export const NEW_PLANT_MEMBERS: ReadonlySet<string> = new Set(Object.keys(NewPlantSchema.pipe[1].entries));

/** POST /plants, after the credential and the body are checked: creates the plant, answers it without its id. */
export function createPlantHandler(plants: PlantRepository): Middleware<AppState> {
  return async (ctx) => {
    // A retry of a stored plant (created: false) answers just like the first creation did.
    const { plant } = await createPlant({ plants }, ctx.state.body);
    ctx.status = 200;
    ctx.body = plant;
  };
}
