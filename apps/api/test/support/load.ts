import { randomPlantId } from '@plant-store/test-support';
import { TOKEN } from './test-server.ts';

/** One POST /plants of a load run, and what came back. */
export interface Attempt {
  readonly id: bigint;
  readonly name: string;
  readonly tag: string;
  /** The HTTP status, or 'no-response' when the connection failed or closed without an answer. */
  readonly status: number | 'no-response';
  readonly retryAfter: string | null;
  /** The fetch error's code (ECONNREFUSED, UND_ERR_SOCKET, ...) when there was no response. */
  readonly error?: string;
  /** performance.now() when it was sent and when it was answered. */
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly token?: string;
  /** Concurrent clients, each sending one request after the other. */
  readonly workers: number;
  /** Checked before each request: true ends the run. */
  readonly done: () => boolean;
  /** The tag every plant of this run carries. */
  readonly tag: string;
  /** A request not answered in this time counts as 'no-response' (a hang). Default 60 s. */
  readonly clientTimeoutMs?: number;
}

function errorCode(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; name?: unknown } | undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (error.name === 'TimeoutError') return 'CLIENT_TIMEOUT';
  return typeof cause?.name === 'string' ? cause.name : error.name;
}

/**
 * A bounded load: `workers` clients create plants of fresh random ids until done() says stop.
 * Every request and its outcome is recorded, so that the database can be checked against it.
 */
export async function runLoad(options: LoadOptions): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  const token = options.token ?? TOKEN;
  const worker = async (): Promise<void> => {
    while (!options.done()) {
      const id = randomPlantId();
      const name = `load ${id}`;
      const startedAt = performance.now();
      try {
        const response = await fetch(`${options.url}/plants`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: `{"id":${id},"name":${JSON.stringify(name)},"tag":${JSON.stringify(options.tag)}}`,
          signal: AbortSignal.timeout(options.clientTimeoutMs ?? 60_000),
        });
        await response.arrayBuffer();
        attempts.push({
          id,
          name,
          tag: options.tag,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          startedAt,
          endedAt: performance.now(),
        });
      } catch (error) {
        attempts.push({
          id,
          name,
          tag: options.tag,
          status: 'no-response',
          retryAfter: null,
          error: errorCode(error),
          startedAt,
          endedAt: performance.now(),
        });
        // A server that is gone refuses at once: do not spin.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  return attempts;
}

/** How many attempts ended with each status ('no-response:<code>' for those without an answer). */
export function countByStatus(attempts: readonly Attempt[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const attempt of attempts) {
    const key = attempt.status === 'no-response' ? `no-response:${attempt.error}` : String(attempt.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** A stored plant as read back from the database. */
export interface StoredPlant {
  readonly name: string;
  readonly tag?: string | undefined;
}

/** What the database holds compared with what the clients were told. */
export interface DurabilityCheck {
  /** Answered 200 and stored exactly: must be every 200. */
  readonly okStored: number;
  /** Answered 200 and missing or different: must be 0. */
  readonly okLost: readonly bigint[];
  /** Answered an error (or nothing) and stored exactly: the commit won the race with the failure; a retry gets 200. */
  readonly errorButStored: number;
  /** Answered an error and absent. */
  readonly errorNotStored: number;
  /** Stored with content other than what was sent: must be 0. */
  readonly halfWritten: readonly bigint[];
}

/** Checks every attempt against the plants found for its id. */
export async function checkDurability(
  attempts: readonly Attempt[],
  find: (ids: readonly bigint[]) => Promise<Map<bigint, StoredPlant>>,
): Promise<DurabilityCheck> {
  const found = await find(attempts.map((attempt) => attempt.id));
  const okLost: bigint[] = [];
  const halfWritten: bigint[] = [];
  let okStored = 0;
  let errorButStored = 0;
  let errorNotStored = 0;
  for (const attempt of attempts) {
    const stored = found.get(attempt.id);
    const exact = stored !== undefined && stored.name === attempt.name && stored.tag === attempt.tag;
    if (stored !== undefined && !exact) halfWritten.push(attempt.id);
    if (attempt.status === 200) {
      if (exact) okStored++;
      else okLost.push(attempt.id);
    } else if (exact) errorButStored++;
    else if (stored === undefined) errorNotStored++;
  }
  return { okStored, okLost, errorButStored, errorNotStored, halfWritten };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Milliseconds with one decimal, for reports. */
export function ms(value: number): number {
  return Math.round(value * 10) / 10;
}
