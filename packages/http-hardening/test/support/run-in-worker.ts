import { Worker } from 'node:worker_threads';

// Node runs the TypeScript module itself in the worker (type stripping), outside vitest's transform.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.url)
  .then((module) => module[workerData.name](...workerData.args))
  .then(
    (value) => parentPort.postMessage({ value }),
    (error) => parentPort.postMessage({ error: String(error) }),
  );
`;

/**
 * Calls the export `name` of the module at `url` with `args` in a worker thread and resolves with
 * what it returns, or rejects once `ms` have passed without an answer (the worker is terminated).
 * A liveness bound for a call that could block its thread for minutes: run in this thread, such a
 * call would freeze the test runner's own timeout along with it.
 */
export async function callInWorker(
  url: URL,
  name: string,
  args: readonly unknown[],
  ms: number,
): Promise<unknown> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url: url.href, name, args } });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${name} did not finish within ${ms} ms`)), ms);
      worker.once('error', reject);
      worker.once('message', (message: { value?: unknown; error?: string }) => {
        if (message.error !== undefined) reject(new Error(message.error));
        else resolve(message.value);
      });
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
