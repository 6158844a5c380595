// How the drills take the machine as it is: which compose they run (Compose v2's `docker compose`
// when it answers, else `docker-compose` 1.29) and which image (official, stand-in, or pulled within
// a bound), against a fake `docker` and `docker-compose` whose answers each test sets. No engine needed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { composeCommand, detectCompose } from '../src/compose.ts';
import { findImage, type WantedImage } from '../src/images.ts';

// Logs each call; `compose version` answers when the file compose-v2 exists; `image inspect` knows
// the images listed in the file images; `pull` does what the file registry says. Builtins only where
// PATH may be the fake's folder alone.
const FAKE_DOCKER = `#!/bin/bash
dir=\${0%/*}
echo "$*" >> "$dir/calls"
case "$1" in
  compose)
    if [ "$2" = version ]; then
      [ -e "$dir/compose-v2" ] && { echo 'Docker Compose version v2.29.7'; exit 0; }
      echo "docker: 'compose' is not a docker command." >&2; exit 1
    fi
    echo "docker $*"; exit 0 ;;
  image)
    image=\${@: -1}
    while read -r held; do [ "$held" = "$image" ] && { echo sha256:0; exit 0; }; done < "$dir/images"
    echo "Error: No such image: $image" >&2; exit 1 ;;
  pull)
    echo $$ > "$dir/pull-pid"
    case $(< "$dir/registry") in
      answers) echo "$2: Pulling from library/x"; echo "Status: Downloaded newer image for $2"
               echo "$2" >> "$dir/images"; exit 0 ;;
      refuses) echo 'Error response from daemon: Get "https://registry-1.docker.io/v2/": proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection refused' >&2
               exit 1 ;;
      silent) exec sleep 600 ;;
      slow) echo "$2: Pulling from library/x"; exec sleep 600 ;;
    esac ;;
esac
exit 2
`;
const FAKE_COMPOSE = `#!/bin/bash
[ "$1" = version ] && { echo 'docker-compose version 1.29.2, build unknown'; echo 'docker-py version: 5.0.3'; exit 0; }
echo "docker-compose $*"
`;

const OFFICIAL = 'postgres:17-alpine';
const STANDIN = 'localhost/plant-store-ci/postgres:15';
const WANTED: WantedImage = { present: [OFFICIAL, STANDIN], pull: OFFICIAL };
const BOUNDS = { answerMs: 500, downloadMs: 1_000 };

let bin = '';
let docker = '';
const calls = () => readFileSync(join(bin, 'calls'), 'utf8').trim().split('\n');
const holds = (...images: string[]) =>
  writeFileSync(join(bin, 'images'), images.map((i) => `${i}\n`).join(''));
const registry = (behaviour: 'answers' | 'refuses' | 'silent' | 'slow') =>
  writeFileSync(join(bin, 'registry'), behaviour);

beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), 'plant-store-fake-docker-'));
  docker = join(bin, 'docker');
  writeFileSync(docker, FAKE_DOCKER, { mode: 0o755 });
  writeFileSync(join(bin, 'calls'), '');
  holds();
  registry('refuses');
});

afterEach(() => {
  rmSync(bin, { recursive: true, force: true });
});

describe('the compose the drills run', () => {
  test('Compose v2 when `docker compose version` answers, even with docker-compose on PATH', async () => {
    writeFileSync(join(bin, 'compose-v2'), '');
    writeFileSync(join(bin, 'docker-compose'), FAKE_COMPOSE, { mode: 0o755 });
    const tool = detectCompose(docker, { PATH: bin });
    expect(tool).toEqual({ command: docker, args: ['compose'], version: 'Docker Compose version v2.29.7' });
    const compose = composeCommand(tool, 'drill', 'docker/compose.yaml', () => ({}));
    expect(await compose('ps', '--quiet', 'api')).toBe(
      'docker compose --project-name drill --file docker/compose.yaml ps --quiet api',
    );
  });

  test('docker-compose 1.29 when `docker compose` is not there', async () => {
    writeFileSync(join(bin, 'docker-compose'), FAKE_COMPOSE, { mode: 0o755 });
    const tool = detectCompose(docker, { PATH: bin });
    expect(tool).toEqual({
      command: 'docker-compose',
      args: [],
      version: 'docker-compose version 1.29.2, build unknown',
    });
    const compose = composeCommand(tool, 'drill', 'docker/compose.yaml', () => ({ PATH: bin }));
    expect(await compose('up', '--detach', '--no-build')).toBe(
      'docker-compose --project-name drill --file docker/compose.yaml up --detach --no-build',
    );
  });

  test('none when neither answers; a compose call then rejects, saying so', async () => {
    const tool = detectCompose(docker, { PATH: bin });
    expect(tool).toBeUndefined();
    await expect(composeCommand(tool, 'drill', 'docker/compose.yaml', () => ({}))('ps')).rejects.toThrow(
      /no compose answers here/,
    );
  });
});

describe('the image a drill runs', () => {
  test('the official image when the engine holds it: nothing pulled', async () => {
    holds(OFFICIAL, STANDIN);
    expect(await findImage(WANTED, { client: docker, bounds: BOUNDS })).toEqual({
      image: OFFICIAL,
      pulled: false,
    });
    expect(calls().filter((call) => call.startsWith('pull'))).toEqual([]);
  });

  test('the stand-in when the engine holds it and not the official one: nothing pulled', async () => {
    holds(STANDIN);
    registry('answers');
    expect(await findImage(WANTED, { client: docker, bounds: BOUNDS })).toEqual({
      image: STANDIN,
      pulled: false,
    });
    expect(calls().filter((call) => call.startsWith('pull'))).toEqual([]);
  });

  test('neither held, a registry answers: the official image, pulled', async () => {
    registry('answers');
    expect(await findImage(WANTED, { client: docker, bounds: BOUNDS })).toEqual({
      image: OFFICIAL,
      pulled: true,
    });
    expect(calls()).toContain(`pull ${OFFICIAL}`);
  });

  test('neither held, the registry refuses: none, with the engine’s reason', async () => {
    const found = await findImage(WANTED, { client: docker, bounds: BOUNDS });
    expect(found.image).toBeUndefined();
    expect('why' in found && found.why).toMatch(
      /none of postgres:17-alpine, localhost\/plant-store-ci\/postgres:15 is on the engine, and docker pull postgres:17-alpine failed: .*connection refused/,
    );
  });

  test('neither held, no registry answers: the pull is given up after its bound, and its process ended', async () => {
    registry('silent');
    const found = await findImage(WANTED, { client: docker, bounds: BOUNDS });
    expect('why' in found && found.why).toMatch(
      /no registry answered a pull of postgres:17-alpine within 0\.5 s/,
    );
    expectEnded(Number(readFileSync(join(bin, 'pull-pid'), 'utf8')));
  });

  test('a registry that answers, then a download that never ends: given up after the download bound', async () => {
    registry('slow');
    const found = await findImage(WANTED, { client: docker, bounds: BOUNDS });
    expect('why' in found && found.why).toMatch(/the pull of postgres:17-alpine did not finish within 1 s/);
    expectEnded(Number(readFileSync(join(bin, 'pull-pid'), 'utf8')));
  });

  test('an image with no official one (PgBouncer, Patroni, etcd) is never pulled', async () => {
    registry('answers');
    const found = await findImage(
      { present: ['localhost/plant-store-ci/pgbouncer:1.18'] },
      { client: docker },
    );
    expect('why' in found && found.why).toMatch(
      /pgbouncer:1\.18 is not on the engine \(no official image to pull\)/,
    );
    expect(calls().filter((call) => call.startsWith('pull'))).toEqual([]);
  });
});

function expectEnded(pid: number): void {
  expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
}
