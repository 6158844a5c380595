// The durable dispatcher is '@plant-store/webhooks/pg-boss': imported only where a database is, it
// keeps pg and pg-boss out of a memory run.

export { redactedUrl } from './attempt-span.ts';
export type {
  WebhookBacklog,
  WebhookConfig,
  WebhookDispatcher,
  WebhookObserver,
} from './deliveries.ts';
export type { DeliveryJob } from './delivery-job.ts';
export { startMemoryDispatcher } from './memory-dispatcher.ts';
export { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './schedule.ts';
export { parseWebhookSecrets } from './secrets.ts';
