/** Creates against the api over HTTP, one at a time or as a load of concurrent workers. */
import { randomPlantId } from '@plant-store/test-support';

export type Outcome = number | 'network error';

/** POST /plants; the status, or `network error` when no answer came (refused, reset, closed). */
export async function createPlant(url: string, token: string, id: bigint, name: string): Promise<Outcome> {
  try {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: `{"id": ${id}, "name": ${JSON.stringify(name)}}`,
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'network error';
  }
}

export interface LoadResult {
  /** Each create answered 200, by id, with the name it was sent with. */
  readonly created: Map<bigint, string>;
  /** Every answer that was not a 200, by status (or `network error`). */
  readonly failures: Map<string, number>;
  readonly total: number;
  /** From the first failed request to the last, in ms; 0 when none failed. */
  readonly failureWindowMs: number;
}

export interface LoadOptions {
  /** Called with each answer and when it came (performance.now()). */
  readonly onAnswer?: (outcome: Outcome, at: number, tookMs: number) => void;
  /** A worker waits this long after a 503 before its next create, as a client honouring Retry-After would wait at least a little. */
  readonly pauseAfter503Ms?: number;
}

/**
 * `workers` loops, each creating fresh plants one after another, until `stop` resolves. The urls
 * are taken in turn, so a load can spread over several entry points.
 */
export async function createUnderLoad(
  urls: readonly string[],
  token: string,
  workers: number,
  stop: Promise<unknown>,
  options: LoadOptions = {},
): Promise<LoadResult> {
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  const created = new Map<bigint, string>();
  const failures = new Map<string, number>();
  let total = 0;
  let firstFailure = 0;
  let lastFailure = 0;
  const worker = async (index: number) => {
    for (let turn = 0; !stopped; turn += 1) {
      const id = randomPlantId();
      const name = `load-${index}-${turn}`;
      const sent = performance.now();
      const outcome = await createPlant(urls[(index + turn) % urls.length] ?? '', token, id, name);
      total += 1;
      const answered = performance.now();
      options.onAnswer?.(outcome, answered, answered - sent);
      if (outcome === 200) {
        created.set(id, name);
      } else {
        const now = performance.now();
        if (firstFailure === 0) firstFailure = now;
        lastFailure = now;
        failures.set(String(outcome), (failures.get(String(outcome)) ?? 0) + 1);
        // A refused connection fails at once: pace the retries of a worker that gets no answer.
        if (outcome === 'network error') await new Promise((resolve) => setTimeout(resolve, 5));
        if (outcome === 503 && options.pauseAfter503Ms) {
          await new Promise((resolve) => setTimeout(resolve, options.pauseAfter503Ms));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  return { created, failures, total, failureWindowMs: lastFailure - firstFailure };
}

/** How many of `created` are stored: each id sent again with another name must be a 409. */
export async function countDurable(
  url: string,
  token: string,
  created: Map<bigint, string>,
): Promise<number> {
  let durable = 0;
  const ids = [...created.keys()];
  for (let start = 0; start < ids.length; start += 16) {
    const outcomes = await Promise.all(
      ids.slice(start, start + 16).map((id) => createPlant(url, token, id, `${created.get(id)}-other`)),
    );
    durable += outcomes.filter((outcome) => outcome === 409).length;
  }
  return durable;
}

export function sum(failures: Map<string, number>): number {
  return [...failures.values()].reduce((a, b) => a + b, 0);
}
