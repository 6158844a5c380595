export { warnDidNotRun } from './did-not-run.ts';
export { eventually } from './eventually.ts';
export { findNode } from './find-node.ts';
export { freePort } from './free-port.ts';
export {
  type InMemoryTracing,
  startInMemoryTracing,
  UNSAMPLED_SPAN_ID,
  unsampledContext,
} from './in-memory-tracing.ts';
export {
  type OtlpBehaviour,
  type OtlpReceiver,
  type ReceivedExport,
  startOtlpReceiver,
} from './otlp-receiver.ts';
export type { Attributes, AttributeValue, ReceivedSpan, SpanKindName } from './otlp-spans.ts';
export { type PgliteDataFolders, pgliteDataFolders } from './pglite-data-folders.ts';
export {
  createTestSchema,
  EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  provideTestPostgres,
  type TestPostgres,
  withSearchPath,
} from './postgres.ts';
export { BUSY_MACHINE_SLACK_MS } from './promised-timeouts.ts';
export { randomPlantId } from './random-plant-id.ts';
export { byName, childrenOf, spanTree } from './span-tree.ts';
export { startTcpRelay, type TcpRelay } from './tcp-relay.ts';
export { TEST_RUN } from './test-run.ts';
export { newSecret, type Received, startTestReceiver, type TestReceiver } from './webhook-receiver.ts';
