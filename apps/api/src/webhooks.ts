import type { PlantStorage } from '@plant-store/domain';
import type { DeliveryJob, WebhookDispatcher, WebhookObserver } from '@plant-store/webhooks';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { OpenedStorage, StartWebhooks } from './storage-adapters.ts';

/** What /metrics shows of the webhook: counts since start, and the queue as it is now. */
export interface WebhookFigures {
  delivered(): number;
  attemptsFailed(): number;
  readonly dispatcher: WebhookDispatcher;
}

/** Where a delivery went, for the log: no query (it may carry a token), no user or password. */
function whereTo(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}

/** Delivers from the storage's outbox in this process's memory, with timers: for a storage without a queue. */
function inMemory(storage: PlantStorage): StartWebhooks {
  return async (...args) => {
    if (!storage.events) throw new Error('webhooks need a storage opened with events');
    const { startMemoryDispatcher } = await import('@plant-store/webhooks');
    return startMemoryDispatcher(storage.events, ...args);
  };
}

/**
 * Starts delivering every plant created to WEBHOOK_URLS, through the storage's queue or, without
 * one, from memory; undefined when no URL is configured.
 */
export async function startWebhookDelivery(
  config: Config,
  opened: OpenedStorage,
  logger: Logger,
): Promise<WebhookFigures | undefined> {
  const { webhookUrls, webhookSecrets } = config;
  if (webhookUrls === undefined || webhookSecrets === undefined) return undefined;
  let delivered = 0;
  let attemptsFailed = 0;
  const about = (job: DeliveryJob) => ({
    webhookId: job.eventId,
    url: whereTo(job.url),
    attempt: job.attempt + 1,
  });
  const observer: WebhookObserver = {
    delivered(job, status) {
      delivered += 1;
      // Once a plant created: its line (a URL parsed) only when it is written.
      if (logger.isLevelEnabled('debug')) logger.debug({ ...about(job), status }, 'webhook delivered');
    },
    attemptFailed(job, reason) {
      attemptsFailed += 1;
      logger.warn({ ...about(job), reason }, 'webhook attempt failed');
    },
    gone(job) {
      logger.info(about(job), 'webhook receiver answered 410: no more attempts of this event there');
    },
    dead(job) {
      logger.error(about(job), 'webhook delivery dead after its last attempt: kept for redelivery');
    },
    abandoned(job) {
      logger.info(about(job), 'webhook attempt abandoned: the service is stopping; it is made again later');
    },
  };
  const start = opened.webhookQueue?.start ?? inMemory(opened.storage);
  const dispatcher = await start(
    {
      urls: webhookUrls,
      keys: webhookSecrets,
      schedule: config.webhookRetrySchedule,
      timeoutMs: config.webhookTimeoutMs,
      maxEventsInMemory: config.webhookMemoryBacklog,
    },
    observer,
    (error) => logger.error({ err: error }, 'webhook delivery: the queue failed; it tries again'),
  );
  logger.info({ urls: webhookUrls.map(whereTo) }, 'webhooks on');
  return { delivered: () => delivered, attemptsFailed: () => attemptsFailed, dispatcher };
}
