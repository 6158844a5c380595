// For operators and load balancers: liveness, readiness, metrics.
import { StorageUnavailableError } from '@plant-store/domain';
import * as v from 'valibot';
import { HttpError, RETRY_LATER } from '../http/http-error.ts';
import { HealthBodySchema, ReadinessBodySchema } from './answer-bodies.ts';
import { failure, RETRY_AFTER } from './answers.ts';
import { KEYS_UNAVAILABLE_EXAMPLES, NOT_READY_EXAMPLES } from './error-examples.ts';
import { defineOperation } from './operation.ts';

export const healthOperation = defineOperation({
  method: 'get',
  path: '/healthz',
  operationId: 'health',
  tags: ['monitoring'],
  scope: 'none',
  summary: 'Whether the process is up (says nothing about storage).',
  responses: { 200: { description: 'The process answers.', body: { schema: HealthBodySchema } } },
  // Says nothing about storage, so that a database outage never restarts the process.
  handler: () => (ctx) => {
    ctx.body = { status: 'ok' };
  },
});

export const readinessOperation = defineOperation({
  method: 'get',
  path: '/readyz',
  operationId: 'readiness',
  tags: ['monitoring'],
  scope: 'none',
  summary: 'Whether to send traffic here: storage answers and the service is not stopping.',
  responses: {
    200: { description: 'Ready.', body: { schema: ReadinessBodySchema } },
    503: failure('Storage does not answer, or the service is stopping.', NOT_READY_EXAMPLES, RETRY_AFTER),
  },
  // Ready: storage answers, the server is not stopping, and the credentials can be checked (with JWT,
  // the provider's keys were loaded once).
  handler:
    ({ storage, isShuttingDown, credentials }) =>
    async (ctx) => {
      if (isShuttingDown()) throw new HttpError(503, 'the server is shutting down', RETRY_LATER);
      if (!credentials.ready()) {
        throw new HttpError(503, "the identity provider's keys are not loaded yet", RETRY_LATER);
      }
      try {
        await storage.checkReady();
      } catch (error) {
        if (error instanceof StorageUnavailableError) throw error;
        // Not ready either way; the unexpected cause goes to the log, not to the client.
        ctx.state.failure = error;
        throw new HttpError(503, 'storage is not ready', RETRY_LATER);
      }
      ctx.body = { status: 'ready' };
    },
});

// Operators' metrics: same port, same bearer tokens as the API (see RELIABILITY.md for why).
export const metricsOperation = defineOperation({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  tags: ['monitoring'],
  scope: 'read',
  summary:
    "The service's metrics, in Prometheus' text format, for operators. Same tokens as the API (a JWT needs the read scope).",
  responses: {
    200: { description: 'The metrics.', body: { mediaType: 'text/plain', schema: v.string() } },
    503: failure(
      "JWT only: the identity provider's keys were never loaded. Retry later.",
      KEYS_UNAVAILABLE_EXAMPLES,
      RETRY_AFTER,
    ),
  },
  handler:
    ({ metrics }) =>
    async (ctx) => {
      ctx.body = await metrics.registry.metrics();
      ctx.set('Content-Type', metrics.registry.contentType);
      ctx.set('Cache-Control', 'no-store');
    },
});
