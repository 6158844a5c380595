/**
 * The images the drills run, found as a machine has them: the official image when the engine holds
 * it, else the stand-in `pnpm docker:prepare` builds, else the official image pulled where a registry
 * answers. A registry that does not answer is given up after a short bound, never waited on.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { DOCKER } from './client.ts';

const run = promisify(execFile);
const STANDINS = 'localhost/plant-store-ci';

/** An image a drill needs: the names that will do, in order, and the one that may be pulled. */
export interface WantedImage {
  /** The first of these the engine holds is used. */
  readonly present: readonly string[];
  /** Pulled when the engine holds none of them (an official image); none: only `pnpm docker:prepare` makes it. */
  readonly pull?: string;
}

/** The api's base: PLANT_STORE_NODE_IMAGE alone when set, else the official Node 24 image or its stand-in. */
export const NODE_BASE: WantedImage = process.env.PLANT_STORE_NODE_IMAGE
  ? { present: [process.env.PLANT_STORE_NODE_IMAGE], pull: process.env.PLANT_STORE_NODE_IMAGE }
  : { present: ['node:24.21.0-bookworm-slim', `${STANDINS}/node:24`], pull: 'node:24.21.0-bookworm-slim' };
export const POSTGRES: WantedImage = {
  present: ['postgres:17-alpine', `${STANDINS}/postgres:15`],
  pull: 'postgres:17-alpine',
};
export const HAPROXY: WantedImage = {
  present: ['haproxy:2.6', `${STANDINS}/haproxy:2.6`],
  pull: 'haproxy:2.6',
};
// No official image of these: Debian's packages, built by `pnpm docker:prepare`.
export const PGBOUNCER: WantedImage = { present: [`${STANDINS}/pgbouncer:1.18`] };
export const PATRONI: WantedImage = { present: [`${STANDINS}/patroni:3.0`] };
export const ETCD: WantedImage = { present: [`${STANDINS}/etcd:3.4`] };

/** How long a pull may wait for the registry's first answer, and then for the whole download. */
export interface PullBounds {
  readonly answerMs: number;
  readonly downloadMs: number;
}
export const PULL_BOUNDS: PullBounds = {
  answerMs: Number(process.env.PLANT_STORE_PULL_ANSWER_S || 30) * 1000,
  downloadMs: 600_000,
};

export type FoundImage =
  | { readonly image: string; readonly pulled: boolean }
  | { readonly image?: undefined; readonly why: string };

export async function imagePresent(image: string, client = DOCKER): Promise<boolean> {
  return run(client, ['image', 'inspect', '--format', '{{.Id}}', image]).then(
    () => true,
    () => false,
  );
}

/**
 * `docker pull image`, given up when the registry has not answered within `answerMs` (a pull prints
 * nothing until it has) or the download outlasts `downloadMs`. Resolves with why it failed, or
 * undefined once the image is there.
 */
export function pullWithin(image: string, bounds: PullBounds, client = DOCKER): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(client, ['pull', image], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let answered = false;
    let why: string | undefined;
    const giveUp = (reason: string) => {
      why = reason;
      child.kill();
    };
    let timer = setTimeout(
      () => giveUp(`no registry answered a pull of ${image} within ${bounds.answerMs / 1000} s`),
      bounds.answerMs,
    );
    child.stdout.on('data', () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      timer = setTimeout(
        () => giveUp(`the pull of ${image} did not finish within ${bounds.downloadMs / 1000} s`),
        bounds.downloadMs,
      );
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', (error) => giveUp(`docker pull ${image} could not run: ${error.message}`));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && why === undefined) resolve(undefined);
      else
        resolve(why ?? `docker pull ${image} failed: ${stderr.trim().split('\n').at(-1) ?? `exit ${code}`}`);
    });
  });
}

/** The image to run for `wanted` (see the file's comment), or why there is none. */
export async function findImage(
  wanted: WantedImage,
  options: { readonly client?: string; readonly bounds?: PullBounds } = {},
): Promise<FoundImage> {
  const client = options.client ?? DOCKER;
  for (const image of wanted.present) {
    if (await imagePresent(image, client)) return { image, pulled: false };
  }
  const absent =
    wanted.present.length === 1
      ? `${wanted.present[0]} is not on the engine`
      : `none of ${wanted.present.join(', ')} is on the engine`;
  if (wanted.pull === undefined) return { why: `${absent} (no official image to pull)` };
  const failed = await pullWithin(wanted.pull, options.bounds ?? PULL_BOUNDS, client);
  if (failed === undefined) return { image: wanted.pull, pulled: true };
  return { why: `${absent}, and ${failed}` };
}

const found = new Map<WantedImage, Promise<FoundImage>>();

/** findImage with the engine's client, once per image in a test file. */
export function lookUpImage(wanted: WantedImage): Promise<FoundImage> {
  let lookup = found.get(wanted);
  if (lookup === undefined) {
    lookup = findImage(wanted);
    found.set(wanted, lookup);
  }
  return lookup;
}

/** The image found for `wanted`; throws when there is none (a drill runs only when all were found). */
export async function imageFor(wanted: WantedImage): Promise<string> {
  const lookup = await lookUpImage(wanted);
  if (lookup.image === undefined) throw new Error(lookup.why);
  return lookup.image;
}
