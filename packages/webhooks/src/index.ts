// The durable dispatcher is '@plant-store/webhooks/pg-boss': imported only where a database is, it
// keeps pg and pg-boss out of a memory run.
export { type AttemptOutcome, attemptDelivery, parseRetryAfter } from './attempt.ts';
export {
  type DeliveryJob,
  firstAttempts,
  type WebhookBacklog,
  type WebhookConfig,
  type WebhookDispatcher,
  type WebhookObserver,
  webhookBody,
} from './deliveries.ts';
export { startMemoryDispatcher } from './memory-dispatcher.ts';
export { DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetrySchedule } from './schedule.ts';
export { parseWebhookSecrets } from './secrets.ts';
export { signatureHeader } from './signature.ts';
