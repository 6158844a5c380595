export { warnDidNotRun } from './did-not-run.ts';
export { eventually } from './eventually.ts';
export { freePort } from './free-port.ts';
export { type InMemoryTracing, startInMemoryTracing } from './in-memory-tracing.ts';
export { createTestSchema, provideTestPostgres, type TestPostgres, withSearchPath } from './postgres.ts';
export { randomPlantId } from './random-plant-id.ts';
export { newSecret, type Received, startTestReceiver, type TestReceiver } from './webhook-receiver.ts';
