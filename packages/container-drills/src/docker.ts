/**
 * The Docker engine as the drills use it: Debian's client where installed (it builds with BuildKit),
 * names that a run owns (so that it removes exactly what it made), and the api image they build.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { TEST_RUN } from '@plant-store/test-support';
import { DOCKER, REPO_ROOT } from './client.ts';
import { imageFor, NODE_BASE } from './images.ts';

export { DOCKER, REPO_ROOT };

const run = promisify(execFile);

/** The containers and networks a drill makes carry this label, valued with the test run; CI checks none is left. */
export const DRILL_LABEL = `plant-store.drill=${TEST_RUN}`;
/** The api image the drills build (BuildKit's cache makes a rebuild of unchanged sources quick). */
export const API_IMAGE = process.env.PLANT_STORE_API_IMAGE ?? 'localhost/plant-store-ci/api:drill';

/** Whether an engine answers; false when there is no client or no daemon. */
export function engineAnswers(): boolean {
  const result = spawnSync(DOCKER, ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return result.status === 0 && result.stdout.trim() !== '';
}

/** Runs the client in the repository's root; rejects with its stderr in the message. */
export async function docker(
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {},
): Promise<string> {
  try {
    const { stdout } = await run(DOCKER, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, DOCKER_BUILDKIT: '1', ...options.env },
      maxBuffer: 64 * 1024 * 1024,
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    return stdout.trim();
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`docker ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

/** The id of the image the engine holds under this name, or undefined when it holds none. */
export async function imageId(image: string): Promise<string | undefined> {
  return docker(['image', 'inspect', '--format', '{{.Id}}', image]).then(
    (id) => id,
    () => undefined,
  );
}

/**
 * A name no other run uses: `plant-store-drill-<test run>-<what>-<random>`. Compose projects are named
 * so too: whatever compose makes (containers, volumes, networks) is known as this run's by its name.
 */
export function uniqueName(what: string): string {
  return `plant-store-drill-${TEST_RUN}-${what}-${randomBytes(4).toString('hex')}`;
}

/** An api image as a build left it: its tag, the id the build printed, and the Node base it was built on. */
export interface BuiltApiImage {
  readonly image: string;
  readonly id: string;
  readonly base: string;
}

/**
 * Builds docker/Dockerfile into API_IMAGE on the Node base found (images.ts), pulling nothing more. A machine whose npm traffic passes a
 * TLS-inspecting proxy names its CA bundle in NODE_EXTRA_CA_CERTS; the build gets it as a secret.
 * The id is the one this build printed, whatever another build tags meanwhile.
 */
export async function buildApiImage(): Promise<BuiltApiImage> {
  const base = await imageFor(NODE_BASE);
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const printed = await docker([
    'build',
    '--network',
    'host',
    '--pull=false',
    '--quiet',
    '--file',
    'docker/Dockerfile',
    '--build-arg',
    `NODE_IMAGE=${base}`,
    ...(ca && existsSync(ca) ? ['--secret', `id=extra_ca,src=${ca}`] : []),
    '--tag',
    API_IMAGE,
    '.',
  ]);
  const id = /sha256:[0-9a-f]{64}/.exec(printed)?.[0] ?? (await imageId(API_IMAGE));
  if (id === undefined) throw new Error(`docker build ended, but ${API_IMAGE} is not there`);
  return { image: API_IMAGE, id, base };
}

export interface Container {
  readonly name: string;
  /** `http://127.0.0.1:<published port>` for the container's port 3000. */
  readonly url: string;
}

/** Starts a detached, labelled container of `image` with port 3000 published on a free loopback port. */
export async function runApi(
  image: string,
  options: { readonly args?: readonly string[]; readonly name?: string },
): Promise<Container> {
  const name = options.name ?? uniqueName('api');
  await docker([
    'run',
    '--detach',
    '--name',
    name,
    '--label',
    DRILL_LABEL,
    '--publish',
    '127.0.0.1::3000',
    ...(options.args ?? []),
    image,
  ]);
  return { name, url: await publishedUrl(name) };
}

export async function publishedUrl(name: string): Promise<string> {
  const binding = (await docker(['port', name, '3000/tcp'])).split('\n')[0] ?? '';
  return `http://${binding}`;
}

export async function inspect(name: string, format: string): Promise<string> {
  return docker(['inspect', '--format', format, name]);
}

/** Waits until the HEALTHCHECK says healthy; fails on unhealthy or an exited container, with its log. */
export async function waitHealthy(name: string, limitMs = 120_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const [state, health] = (
      await inspect(name, '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}')
    ).split(' ');
    if (health === 'healthy') return performance.now() - started;
    if (state !== 'running' || health === 'unhealthy' || performance.now() - started > limitMs) {
      const logs = await docker(['logs', '--tail', '30', name]).catch((error: Error) => error.message);
      throw new Error(
        `container ${name} is ${state}/${health || 'no health'}, not healthy; its log:\n${logs}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Removes the containers and volumes given, whatever their state; never throws. */
export async function removeAll(
  containers: readonly string[],
  volumes: readonly string[] = [],
): Promise<void> {
  if (containers.length > 0) await docker(['rm', '--force', '--volumes', ...containers]).catch(() => {});
  if (volumes.length > 0) await docker(['volume', 'rm', '--force', ...volumes]).catch(() => {});
}
