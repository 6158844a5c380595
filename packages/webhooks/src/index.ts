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
export {
  DEAD_QUEUE,
  DELIVERY_QUEUE,
  jobQueueSchema,
  type PgBossDispatcherOptions,
  type QueueDatabase,
  startPgBossDispatcher,
} from './pg-boss-dispatcher.ts';
export { DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetrySchedule } from './schedule.ts';
export { parseWebhookSecrets } from './secrets.ts';
export { signatureHeader } from './signature.ts';
