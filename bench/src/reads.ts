// The reads on PostgreSQL: `GET /plants/{id}` and a 100-item page of `GET /plants?limit=&after=`,
// the service against the bare node:http + pg server doing the same SELECT on the same table
// (baselines/bare-pg-reads.ts). Both servers are up at once; they are loaded in turn, bare,
// service, bare, service, ..., bare, reading each server process's CPU time around each segment,
// so that others' work on the machine, which comes and goes, hits both sides alike.
import { bracketRatios, interleave } from './interleave.ts';
import { type LoadResult, runLoad } from './load.ts';
import { processCpuSeconds, type RunningChild } from './processes.ts';
import type { ReadFigures } from './results.ts';

/** Rounds of bare, service, bare, ..., bare: each service segment has a bare one just before and after it. */
export const READ_ROUNDS = 5;
export const READ_CONNECTIONS = 16;
/** How many answers of each server are compared before the load (status, body and `Link`). */
const CHECKED_REQUESTS = 20;

interface Segment {
  readonly cpuUsPerRequest: number;
  readonly requestsPerSecond: number;
}

/** A load on one server; any answer but a 2xx fails the section, so that no error is measured as a read. */
async function measureSegment(
  child: RunningChild,
  token: string,
  nextPath: () => string,
  seconds: number,
): Promise<Segment> {
  const cpuBefore = processCpuSeconds(child.pid);
  const result: LoadResult = await runLoad({
    url: child.url,
    connections: READ_CONNECTIONS,
    durationSeconds: seconds,
    token,
    nextPath,
  });
  const cpuSeconds = processCpuSeconds(child.pid) - cpuBefore;
  if (child.exited()) throw new Error(`${child.name} died under load:\n${child.recentOutput()}`);
  if (result.ok === 0 || result.non2xx > 0 || result.socketErrors > 0) {
    throw new Error(
      `${child.name} answered ${result.ok} reads with a 2xx, ${result.non2xx} with another status and ` +
        `${result.socketErrors} with a socket error or timeout: ${await sample(child, token, nextPath())}`,
    );
  }
  return { cpuUsPerRequest: (cpuSeconds * 1e6) / result.ok, requestsPerSecond: result.requestsPerSecond };
}

interface Answer {
  readonly status: number;
  readonly link: string | null;
  readonly body: string;
}

async function get(child: RunningChild, token: string, path: string): Promise<Answer> {
  const response = await fetch(`${child.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, link: response.headers.get('link'), body: await response.text() };
}

/** One answer, shown in a failure message. */
async function sample(child: RunningChild, token: string, path: string): Promise<string> {
  try {
    const answer = await get(child, token, path);
    return `GET ${path} answers ${answer.status}: ${answer.body.slice(0, 300)}`;
  } catch (error) {
    return `GET ${path} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Before any load: the same requests to both servers answer 200, with the same body and the same
 * `Link` header, so that the baseline does the service's work and not less. Fails loudly otherwise.
 */
async function checkSameAnswers(
  service: RunningChild,
  bare: RunningChild,
  token: string,
  nextPath: () => string,
  expectLink: boolean,
): Promise<void> {
  for (let index = 0; index < CHECKED_REQUESTS; index += 1) {
    const path = nextPath();
    const [fromService, fromBare] = await Promise.all([get(service, token, path), get(bare, token, path)]);
    for (const [child, answer] of [
      [service, fromService],
      [bare, fromBare],
    ] as const) {
      if (answer.status !== 200)
        throw new Error(`${child.name}: GET ${path} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      if (expectLink && answer.link === null)
        throw new Error(`${child.name}: GET ${path} answered no Link header, though more plants remain`);
    }
    if (fromService.body !== fromBare.body || fromService.link !== fromBare.link) {
      throw new Error(
        `the baseline does not answer as the service: GET ${path}\n` +
          `  service: ${fromService.link ?? '(no Link)'} ${fromService.body.slice(0, 300)}\n` +
          `  bare:    ${fromBare.link ?? '(no Link)'} ${fromBare.body.slice(0, 300)}`,
      );
    }
  }
}

/**
 * Runs the section against both started servers: the answers compared, a warm-up of each (every
 * answer a 2xx, or it fails), then READ_ROUNDS rounds; each service segment's ratios are taken to
 * the mean of the two bare segments around it.
 */
export async function measureReads(options: {
  readonly service: RunningChild;
  readonly bare: RunningChild;
  readonly token: string;
  /** What each request is, for the report: `GET /plants/{id}`. */
  readonly request: string;
  readonly seeded: number;
  /** A path of its own for each request, of a plant (or a full page) stored before the load. */
  readonly nextPath: () => string;
  /** Whether each answer carries `Link: rel="next"` (a page with more plants after it). */
  readonly expectLink: boolean;
  readonly segmentSeconds: number;
  readonly warmupSeconds: number;
  readonly log: (line: string) => void;
}): Promise<ReadFigures> {
  const { service, bare, token, nextPath, segmentSeconds, log } = options;
  await checkSameAnswers(service, bare, token, nextPath, options.expectLink);
  for (const child of [bare, service]) await measureSegment(child, token, nextPath, options.warmupSeconds);

  const { segments, errors } = await interleave<Segment>({
    sides: [
      { key: 'bare', measure: (seconds) => measureSegment(bare, token, nextPath, seconds) },
      { key: 'service', measure: (seconds) => measureSegment(service, token, nextPath, seconds) },
    ],
    pairs: [['service', 'bare']],
    rounds: READ_ROUNDS,
    seconds: segmentSeconds,
    onRound: (round, these) => {
      const fig = (side: string) => these.find((segment) => segment.side === side)?.figures;
      const [b, m] = [fig('bare'), fig('service')];
      if (b === undefined && m === undefined) return;
      log(
        `  ${round > READ_ROUNDS ? 'closing' : `round ${round} of ${READ_ROUNDS}`}: ` +
          (b
            ? `bare ${Math.round(b.cpuUsPerRequest)} us/req, ${Math.round(b.requestsPerSecond)} req/s`
            : '') +
          (m
            ? `; service ${Math.round(m.cpuUsPerRequest)} us/req, ${Math.round(m.requestsPerSecond)} req/s`
            : ''),
      );
    },
  });
  const of = (side: string, value: (segment: Segment) => number) =>
    segments.filter((segment) => segment.side === side).map((segment) => value(segment.figures));
  const bareCpu = of('bare', (s) => s.cpuUsPerRequest);
  const serviceCpu = of('service', (s) => s.cpuUsPerRequest);
  const bareRps = of('bare', (s) => s.requestsPerSecond);
  const serviceRps = of('service', (s) => s.requestsPerSecond);
  const cpuRatios = bracketRatios(segments, 'service', 'bare', (s) => s.cpuUsPerRequest);
  const rpsRatios = bracketRatios(segments, 'service', 'bare', (s) => s.requestsPerSecond);
  // A segment that failed fails the section, as before: no read is measured as an error.
  const failed = [...errors.values()];
  if (failed.length > 0) throw new Error(failed.join('\n'));
  log(
    `  CPU/req ${cpuRatios.map((r) => `${r.toFixed(2)}x`).join(' ')}; req/s ${rpsRatios.map((r) => `${r.toFixed(2)}x`).join(' ')}`,
  );
  return {
    request: options.request,
    seeded: options.seeded,
    connections: READ_CONNECTIONS,
    segmentSeconds,
    bareCpuUsPerRequest: bareCpu,
    serviceCpuUsPerRequest: serviceCpu,
    bareRequestsPerSecond: bareRps,
    serviceRequestsPerSecond: serviceRps,
    cpuRatios,
    rpsRatios,
  };
}
