// The api's Docker image as a side of the PostgreSQL group, c64 only: built as the container drills
// build it (packages/container-drills: docker/Dockerfile, BuildKit, never pulling, the same tag, so that
// either reuses the other's cache), run with the host's network (it reaches PostgreSQL on loopback, and
// the load reaches it with no proxy between), and measured through its main process, which the host
// sees as a process of its own. Its containers carry BENCH_LABEL (the bench's pid) and are removed
// when the bench exits; one a killed bench left is removed by the next run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { API_IMAGE, buildApiImage, DOCKER, docker, imageId } from '@plant-store/container-drills/docker';
import { freePort } from '@plant-store/test-support';
import { type Child, type Context, freshPlant, serverEnv, serverSide, waitReady } from '../harness.ts';

const BENCH_LABEL = 'plant-store.bench';
const containers = new Set<string>();

/** Removes this run's containers: synchronous, for an 'exit' handler. */
export function removeContainers(): void {
  if (containers.size > 0)
    spawnSync(DOCKER, ['rm', '--force', ...containers], { stdio: 'ignore', timeout: 30_000 });
}

/** The bench's containers whose bench is gone (killed outright, its exit handler never ran). */
async function removeOrphans(): Promise<string[]> {
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
    .map((line) => line.trim().split(' '))
    .filter(([name, owner]) => name && Number(owner) !== process.pid && !existsSync(`/proc/${Number(owner)}`))
    .map(([name]) => name as string);
  if (orphans.length > 0) await docker(['rm', '--force', ...orphans]);
  return orphans;
}

async function startImage(context: Context, url: string): Promise<{ child: Child; note: string }> {
  const version = await docker(['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 }).catch(
    () => '',
  );
  if (version === '') throw new Error(`no Docker engine answers ${DOCKER}`);
  const orphans = await removeOrphans();
  if (orphans.length > 0) context.log(`  image: removed ${orphans.join(', ')}, left by a killed bench`);
  context.log(`  image: building ${API_IMAGE} (about 2 minutes from scratch, seconds when nothing changed)`);
  const before = await imageId(API_IMAGE);
  const started = performance.now();
  const built = await buildApiImage();
  const note = `${built.image} (${built.id.slice(0, 19)} on ${built.base}, ${built.id === before ? 'unchanged' : 'built in this run'}, ${((performance.now() - started) / 1000).toFixed(0)} s)`;
  const port = await freePort();
  const container = `plant-store-bench-image-${randomBytes(4).toString('hex')}`;
  // The bench's PATH and HOME are the host's, not the image's; values go by name, never on a command line.
  const { PATH: _path, HOME: _home, ...env } = serverEnv(context, { DATABASE_URL: url, PORT: String(port) });
  containers.add(container);
  const remove = async () => {
    await docker(['rm', '--force', container]).catch(() => {});
    containers.delete(container);
  };
  try {
    await docker(
      ['run', '--detach', '--pull=never', '--name', container, '--label', `${BENCH_LABEL}=${process.pid}`]
        // Its HEALTHCHECK off: a `node -e` every 10 s would land in the segments.
        .concat([
          '--network',
          'host',
          '--no-healthcheck',
          ...Object.keys(env).flatMap((name) => ['--env', name]),
          built.id,
        ]),
      { env },
    );
    const pid = Number(await docker(['inspect', '--format', '{{.State.Pid}}', container]));
    const exited = () => !existsSync(`/proc/${pid}`);
    const output = () => {
      const logs = spawnSync(DOCKER, ['logs', '--tail', '40', container], { encoding: 'utf8' });
      return `${logs.stdout ?? ''}${logs.stderr ?? ''}`;
    };
    const childUrl = `http://127.0.0.1:${port}`;
    await waitReady(
      `${childUrl}/healthz`,
      'api image',
      () => (exited() ? `exited:\n${output()}` : undefined),
      60_000,
    );
    const stop = async () => {
      // SIGTERM first, as for a child: the service drains and closes its pool.
      await docker(['stop', '--time', '15', container]).catch(() => {});
      await remove();
    };
    return { child: { name: 'api image', pid, url: childUrl, exited, output, stop }, note };
  } catch (error) {
    await remove();
    throw error;
  }
}

export function imageSide(context: Context, url: string, before: () => Promise<unknown>) {
  return serverSide(context, {
    key: 'image',
    label: 'api image (container), PostgreSQL',
    baselines: ['postgres'],
    levels: [64],
    launch: async (run) => {
      if (!context.options.connections.includes(64))
        throw new Error('measured at c64, which --connections leaves out');
      const { child, note } = await startImage(context, url);
      run.notes.push(`${note}, run with --network host beside the host's service and loaded in turn with it`);
      return child;
    },
    traffic: { token: context.token, body: freshPlant },
    before,
  });
}
