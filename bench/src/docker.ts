// The api's Docker image as a bench target: built as the container drills build it
// (packages/container-drills/src/docker.ts: docker/Dockerfile, BuildKit, never pulling, the same tag,
// so that either reuses the other's cache), run with the host's network so that it reaches the
// PostgreSQL server on loopback and is reached without a proxy in between, and measured through its
// main process, which the host sees as a process of its own. The client, the base image and the build
// are the drills' own; the bench's containers carry a label of their own, not the one the drills' CI
// checks for leftovers.
//
// Every container the bench starts carries BENCH_LABEL (its value the bench's pid) and is removed when
// the bench exits, however it exits; one left by a bench that was killed outright is removed by the
// next run that starts a container.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  API_IMAGE,
  type BuiltApiImage,
  buildApiImage as buildDrillImage,
  DOCKER,
  docker,
  imageId,
} from '@plant-store/container-drills/docker';
import { freePort } from '@plant-store/test-support';
import { answersOk, type RunningChild, statusField, track } from './processes.ts';

export { API_IMAGE };

/** Every container of the bench carries it, its value the pid of the bench that started it. */
export const BENCH_LABEL = 'plant-store.bench';

/** Containers this process started and has not removed yet. */
const containers = new Set<string>();

/** Why no Docker engine can be used here, or undefined when one answers. */
export async function engineProblem(): Promise<string | undefined> {
  try {
    const version = await docker(['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 });
    return version === '' ? `no Docker engine answers ${DOCKER}` : undefined;
  } catch (error) {
    return `no Docker engine answers (${DOCKER}): ${error instanceof Error ? error.message : String(error)}`;
  }
}

export interface BuiltImage extends BuiltApiImage {
  readonly seconds: number;
  /** Whether the tag named this same image before the build: nothing had changed since the last one. */
  readonly unchanged: boolean;
}

/**
 * Builds the api image as the drills do (the same Dockerfile, tag and base, never pulling): BuildKit's
 * cache makes it quick when nothing changed, and the image then holds the sources the host's service
 * was built from.
 */
export async function buildApiImage(): Promise<BuiltImage> {
  const before = await imageId(API_IMAGE);
  const started = performance.now();
  const built = await buildDrillImage();
  return { ...built, seconds: (performance.now() - started) / 1000, unchanged: built.id === before };
}

/** Whether a pid is a live process on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the bench's containers whose bench is gone (killed outright, so its exit handler never
 * ran); a running bench's are left alone. Answers their names.
 */
export async function removeOrphanContainers(): Promise<string[]> {
  const listed = await docker([
    'ps',
    '--all',
    '--filter',
    `label=${BENCH_LABEL}`,
    '--format',
    `{{.Names}} {{.Label "${BENCH_LABEL}"}}`,
  ]);
  const orphans = listed
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(' '))
    .filter(([, owner]) => {
      const pid = Number(owner);
      return !Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && !alive(pid));
    })
    .map(([name]) => name as string);
  if (orphans.length > 0) await docker(['rm', '--force', ...orphans]);
  return orphans;
}

/** Removes every container this process started; synchronous, so that it can run in an 'exit' handler. */
export function removeBenchContainers(): void {
  if (containers.size === 0) return;
  spawnSync(DOCKER, ['rm', '--force', ...containers], { stdio: 'ignore', timeout: 30_000 });
  containers.clear();
}

/** Memory figures of a container read when its load is over, before it is stopped. */
export interface ContainerMemory {
  /** VmRSS of its main process. */
  readonly rssBytes?: number;
  /** The peak of the container's memory cgroup over its whole life (page cache included), and which file said it. */
  readonly cgroupPeakBytes?: number;
  readonly cgroupPeakSource?: string;
}

export interface RunningContainer extends RunningChild {
  readonly container: string;
  /** Read before stop(): VmRSS and the cgroup's peak. */
  memory(): ContainerMemory;
}

/**
 * The peak of the memory cgroup of `pid`: cgroup v2's memory.peak (Linux 5.19 and later), else cgroup
 * v1's memory.max_usage_in_bytes; undefined when neither can be read.
 */
export function cgroupPeak(pid: number): { bytes: number; source: string } | undefined {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const candidates: string[] = [];
  for (const line of lines) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    if (controllers === '')
      candidates.push(`/sys/fs/cgroup${path}/memory.peak`, `/sys/fs/cgroup/unified${path}/memory.peak`);
    else if (controllers?.split(',').includes('memory'))
      candidates.push(`/sys/fs/cgroup/memory${path}/memory.max_usage_in_bytes`);
  }
  for (const file of candidates) {
    try {
      const bytes = Number(readFileSync(file, 'utf8').trim());
      if (Number.isFinite(bytes) && bytes > 0)
        return { bytes, source: file.slice(file.lastIndexOf('/') + 1) };
    } catch {
      // Not this hierarchy.
    }
  }
  return undefined;
}

const KEPT_LINES = 40;

/**
 * Runs `image` as the bench's container: `--network host` on a free loopback port, its HEALTHCHECK
 * off (the bench polls /healthz itself, and a `node -e` started every 10 s would land in the
 * segments), `env` given by name from the client's environment (no value on a command line), never
 * pulled. Waits until /healthz answers 200, as startServer does for a child.
 */
export async function startContainer(options: {
  readonly name: string;
  readonly image: string;
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
}): Promise<RunningContainer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const container = `plant-store-bench-image-${randomBytes(4).toString('hex')}`;
  const env = { ...options.env, PORT: String(port) };
  // Known before `docker run` is, so that an exit while it runs still removes the container.
  containers.add(container);
  const lines: string[] = [];
  let follower: ReturnType<typeof spawn> | undefined;
  const remove = async () => {
    follower?.kill('SIGKILL');
    await docker(['rm', '--force', container]).catch(() => {});
    containers.delete(container);
  };
  try {
    await docker(
      [
        'run',
        '--detach',
        '--pull=never',
        '--name',
        container,
        '--label',
        `${BENCH_LABEL}=${process.pid}`,
        '--network',
        'host',
        '--no-healthcheck',
        ...Object.keys(env).flatMap((name) => ['--env', name]),
        options.image,
      ],
      { env },
    );
    const pid = Number(await docker(['inspect', '--format', '{{.State.Pid}}', container]));
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${options.name}: the container has no process`);
    // Its log, followed until the container ends: the last lines for a failure, and its end an exit.
    follower = track(spawn(DOCKER, ['logs', '--follow', container], { stdio: ['ignore', 'pipe', 'pipe'] }));
    for (const stream of [follower.stdout, follower.stderr]) {
      if (stream === null) continue;
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (lines.length > KEPT_LINES) lines.shift();
      });
    }
    const logs = follower;
    const exited = () => logs.exitCode !== null || logs.signalCode !== null || !existsSync(`/proc/${pid}`);
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    const started = performance.now();
    while (!(await answersOk(`${url}/healthz`))) {
      if (exited()) throw new Error(`${options.name} exited before it was ready:\n${lines.join('\n')}`);
      if (performance.now() - started > timeoutMs)
        throw new Error(`${options.name} was not ready within ${timeoutMs} ms:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      name: options.name,
      container,
      pid,
      url,
      recentOutput: () => lines.join('\n'),
      exited,
      memory: () => {
        const peak = cgroupPeak(pid);
        const rssBytes = statusField(pid, 'VmRSS');
        return {
          ...(rssBytes === undefined ? {} : { rssBytes }),
          ...(peak === undefined ? {} : { cgroupPeakBytes: peak.bytes, cgroupPeakSource: peak.source }),
        };
      },
      stop: async () => {
        // SIGTERM first, as for a child: the service drains and closes its pool; then it is removed.
        await docker(['stop', '--time', '15', container]).catch(() => {});
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
