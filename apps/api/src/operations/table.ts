// The table of operations: what the service serves (routes.ts) and publishes (openapi/openapi-document.ts).
// A new operation is its entry in one of these modules, its line here, and its tests.
import { apiReferenceOperation, docsAssetOperation, openApiDocumentOperation } from './documentation.ts';
import { healthOperation, metricsOperation, readinessOperation } from './monitoring.ts';
import type { Operation, Tag } from './operation.ts';
import { patchPlantOperation, replacePlantOperation } from './plant-changes.ts';
import {
  createPlantOperation,
  deletePlantOperation,
  getPlantOperation,
  listPlantsOperation,
} from './plants.ts';

/** The groups the operations are listed under, in this order; `webhooks` is what the service sends. */
export const TAGS: readonly { readonly name: Tag | 'webhooks'; readonly description: string }[] = [
  {
    name: 'plants',
    description:
      'The store itself: creating, reading, listing, changing and deleting plants. Needs a bearer token.',
  },
  {
    name: 'monitoring',
    description: 'For operators and load balancers: liveness, readiness, metrics.',
  },
  { name: 'documentation', description: 'This description of the interface, as JSON and as this page.' },
  { name: 'webhooks', description: 'What the service POSTs to WEBHOOK_URLS: one request per plant created.' },
];

/**
 * Every operation, in the document's order. The order of a path's operations is also that of its
 * `Allow` header (HEAD comes with GET).
 */
export const OPERATIONS: readonly Operation[] = [
  listPlantsOperation,
  createPlantOperation,
  getPlantOperation,
  replacePlantOperation,
  patchPlantOperation,
  deletePlantOperation,
  healthOperation,
  readinessOperation,
  metricsOperation,
  openApiDocumentOperation,
  apiReferenceOperation,
  docsAssetOperation,
];
