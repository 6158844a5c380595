import { createPlant, type PlantRepository } from '@plant-store/domain';
import type { Middleware } from 'koa';
import type { AppState } from './app-state.ts';

/** POST /plants, after the credential and the body are checked: creates the plant, answers it without its id. */
export function createPlantHandler(plants: PlantRepository): Middleware<AppState> {
  return async (ctx) => {
    // A retry of a stored plant (created: false) answers just like the first creation did.
    const { plant } = await createPlant({ plants }, ctx.state.body);
    ctx.status = 200;
    ctx.body = plant;
  };
}
