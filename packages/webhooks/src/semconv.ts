// Messaging conventions still incubating in @opentelemetry/semantic-conventions: copied, as its README
// advises, since its `incubating` entry may change them in a minor release.
export const ATTR_MESSAGING_SYSTEM_NAME = 'messaging.system.name';
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name';
export const ATTR_MESSAGING_BATCH_MESSAGE_COUNT = 'messaging.batch.message_count';
export const MESSAGING_OPERATION_TYPE_VALUE_SEND = 'send';
export const MESSAGING_OPERATION_TYPE_VALUE_PROCESS = 'process';

// Ours, under the project's own namespace.
export const ATTR_WEBHOOK_EVENT_ID = 'plant_store.webhook.event_id';
/** 1 for the first attempt at a URL (a redelivery starts again at 1). */
export const ATTR_WEBHOOK_ATTEMPT = 'plant_store.webhook.attempt';
export const ATTR_WEBHOOK_EVENT_COUNT = 'plant_store.webhook.event_count';
