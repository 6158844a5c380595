// Attributes of ours, under the project's own namespace (no convention covers a webhook's event).
export const ATTR_WEBHOOK_EVENT_ID = 'plant_store.webhook.event_id';
/** 1 for the first attempt at a URL (a redelivery starts again at 1). */
export const ATTR_WEBHOOK_ATTEMPT = 'plant_store.webhook.attempt';
export const ATTR_WEBHOOK_EVENT_COUNT = 'plant_store.webhook.event_count';
