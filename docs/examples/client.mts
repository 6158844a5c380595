// The typed client against a running service: create a plant, change it only as read (If-Match), see a
// stale ETag refused, and delete it. From the clone, with the service started (`pnpm start`) and the
// token it printed:
//
//   PLANT_STORE_TOKEN=<token> pnpm exec node docs/examples/client.mts
//
// `pnpm exec` runs the workspace's Node 24, which strips the types. This file imports the client's
// sources from the clone; a project of its own imports '@plant-store/client' (docs/publishing.md).
import { createPlantStoreClient } from '../../packages/client/src/index.ts';

const token = process.env.PLANT_STORE_TOKEN;
if (!token) {
  console.error('set PLANT_STORE_TOKEN to a token the service accepts (the one `pnpm start` printed)');
  process.exit(1);
}
const plants = createPlantStoreClient({
  baseUrl: process.env.PLANT_STORE_URL ?? 'http://127.0.0.1:3000',
  token,
});
const id = 9223372036854775807n; // the largest int64, sent and read back exactly

const created = await plants.createPlant({ id, name: 'Monstera', tag: 'aroid' });
if (!created.ok) {
  console.error('create:', created.status, created.error.message);
  process.exit(1);
}
console.log('created', created.plant, created.etag);

const changed = await plants.patchPlant(id, { tag: null }, { ifMatch: created.etag });
if (!changed.ok) {
  console.error('patch:', changed.status, changed.error.message);
  process.exit(1);
}
console.log('changed', changed.plant, changed.etag);

// The ETag of the plant as first created no longer names it: the change is refused, nothing changes.
const stale = await plants.patchPlant(id, { name: 'Fern' }, { ifMatch: created.etag });
console.log('stale If-Match:', stale.status, stale.ok ? stale.plant : stale.error.message);

const deleted = await plants.deletePlant(id, { ifMatch: changed.etag });
console.log('deleted:', deleted.status);
