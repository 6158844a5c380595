// What the service sends, not what it answers (OpenAPI 3.1's webhooks): the webhook on creation.
import { NewPlantObjectSchema } from '@plant-store/domain';
import { schemaObject } from './components.ts';

export function webhooks(): Record<string, unknown> {
  return {
    plantCreated: {
      post: {
        tags: ['webhooks'],
        operationId: 'plantCreated',
        summary: 'Sent to each of WEBHOOK_URLS for every plant created, at least once.',
        description:
          'Signed with Standard Webhooks: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of ' +
          '`webhook-id.webhook-timestamp.body`, keyed by the WEBHOOK_SECRET (`whsec_` + base64); one signature per ' +
          'secret while rotating. Every copy of one event has the same `webhook-id`: deduplicate on it. Any 2xx ' +
          'delivers; anything else is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (`Retry-After` ' +
          'honoured on 429 and 503); 410 stops this URL for this event; redirects are not followed; 10 s timeout.',
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            description: 'The event: the same on every attempt and at every URL.',
            schema: { type: 'string' },
          },
          {
            name: 'webhook-timestamp',
            in: 'header',
            required: true,
            description: 'When this attempt was signed, in seconds since 1970 (reject ones far from now).',
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
          {
            name: 'webhook-signature',
            in: 'header',
            required: true,
            description: 'Space-separated `v1,<base64>` signatures.',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          description: 'The plant as created; `id` an exact int64.',
          content: { 'application/json': { schema: schemaObject(NewPlantObjectSchema) } },
        },
        responses: {
          '2XX': { description: 'Delivered: no further attempt.' },
          '410': { description: 'Gone: no further attempt of this event at this URL.' },
          default: { description: 'Not delivered: tried again on the schedule, then kept as dead.' },
        },
      },
    },
  };
}
