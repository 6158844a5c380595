// `pnpm docker:prepare` (scripts/docker-prepare.sh) against a fake `docker` that records what it is
// asked: where a registry answers it pulls the official images and builds only what has none; where
// none answers it builds the stand-ins; where the engine holds them (CI) it builds only the api. No
// engine needed, nothing built for real.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../src/client.ts';

// An engine that answers; `image inspect` knows the images listed in the file images, and a build
// or a pull adds to them; `pull` does what the file registry says; every call is logged.
const FAKE_DOCKER = `#!/bin/bash
dir=\${0%/*}
echo "$*" >> "$dir/calls"
case "$1" in
  info|version) echo 20.10.24; exit 0 ;;
  image)
    [ "$2" = ls ] && exit 0
    while read -r held; do [ "$held" = "$3" ] && exit 0; done < "$dir/images"
    exit 1 ;;
  build)
    while [ $# -gt 0 ]; do [ "$1" = -t ] && echo "$2" >> "$dir/images"; shift; done
    exit 0 ;;
  pull)
    case $(< "$dir/registry") in
      answers) echo "$2: Pulling from library/x"; echo "$2" >> "$dir/images"; exit 0 ;;
      refuses) echo 'Error response from daemon: proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection refused' >&2; exit 1 ;;
      silent) exec sleep 600 ;;
    esac ;;
esac
exit 2
`;

const PREFIX = 'localhost/plant-store-ci';
const STANDINS = [
  'debian:bookworm',
  'node:24',
  'postgres:15',
  'haproxy:2.6',
  'pgbouncer:1.18',
  'patroni:3.0',
  'etcd:3.4',
];

let bin = '';

beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), 'plant-store-fake-docker-'));
  writeFileSync(join(bin, 'docker'), FAKE_DOCKER, { mode: 0o755 });
  writeFileSync(join(bin, 'calls'), '');
});

afterEach(() => {
  rmSync(bin, { recursive: true, force: true });
});

/** Runs the script with the fake; what it pulled, and each build as `tag <- base` (its FROM argument). */
function prepare(registry: 'answers' | 'refuses' | 'silent', held: readonly string[]) {
  writeFileSync(join(bin, 'registry'), registry);
  writeFileSync(join(bin, 'images'), held.map((image) => `${image}\n`).join(''));
  const { API_IMAGE: _a, PLANT_STORE_API_IMAGE: _p, PLANT_STORE_NODE_IMAGE: _n, ...env } = process.env;
  const ran = spawnSync('bash', ['scripts/docker-prepare.sh'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...env, PLANT_STORE_DOCKER: join(bin, 'docker'), PLANT_STORE_PULL_ANSWER_S: '1' },
  });
  const calls = readFileSync(join(bin, 'calls'), 'utf8').trim().split('\n');
  const builds = calls
    .filter((call) => call.startsWith('build '))
    .map((call) => {
      const tags = [...call.matchAll(/ -t (\S+)/g)].map((match) => match[1]).join(' ');
      const base = / --build-arg (?:DEBIAN|NODE)_IMAGE=(\S+)/.exec(call)?.[1];
      return `${tags} <- ${base}`;
    });
  return {
    status: ran.status,
    output: `${ran.stdout}${ran.stderr}`,
    pulls: calls.filter((call) => call.startsWith('pull ')).map((call) => call.slice(5)),
    builds,
    imported: calls.some((call) => call.startsWith('import')),
  };
}

describe('pnpm docker:prepare', () => {
  test('where a registry answers: the official images pulled; HAProxy, PgBouncer, Patroni and etcd built on debian:bookworm-slim; no debootstrap', () => {
    const run = prepare('answers', []);
    expect(run.status, run.output).toBe(0);
    expect(run.pulls).toEqual(['node:24.21.0-bookworm-slim', 'postgres:17-alpine', 'debian:bookworm-slim']);
    expect(run.builds).toEqual([
      `${PREFIX}/haproxy:2.6 <- debian:bookworm-slim`,
      `${PREFIX}/pgbouncer:1.18 <- debian:bookworm-slim`,
      `${PREFIX}/patroni:3.0 <- debian:bookworm-slim`,
      `${PREFIX}/etcd:3.4 <- debian:bookworm-slim`,
      `plant-store-api ${PREFIX}/api:drill <- node:24.21.0-bookworm-slim`,
    ]);
    expect(run.imported).toBe(false);
  });

  test('where the engine holds the stand-ins (CI): nothing pulled, only the api built, on the stand-in base', () => {
    const run = prepare(
      'refuses',
      STANDINS.map((standin) => `${PREFIX}/${standin}`),
    );
    expect(run.status, run.output).toBe(0);
    expect(run.pulls).toEqual([]);
    expect(run.builds).toEqual([`plant-store-api ${PREFIX}/api:drill <- ${PREFIX}/node:24`]);
  });

  test('where the registry refuses: one pull tried, the stand-ins built on the Debian stand-in', () => {
    const run = prepare('refuses', [`${PREFIX}/debian:bookworm`, `${PREFIX}/node:24`]);
    expect(run.status, run.output).toBe(0);
    expect(run.pulls).toEqual(['postgres:17-alpine']);
    expect(run.output).toMatch(/postgres:17-alpine not pulled: .*connection refused/);
    expect(run.builds).toEqual([
      ...['postgres:15', 'haproxy:2.6', 'pgbouncer:1.18', 'patroni:3.0', 'etcd:3.4'].map(
        (standin) => `${PREFIX}/${standin} <- ${PREFIX}/debian:bookworm`,
      ),
      `plant-store-api ${PREFIX}/api:drill <- ${PREFIX}/node:24`,
    ]);
  });

  test('where no registry answers a pull: given up after PLANT_STORE_PULL_ANSWER_S, nothing more pulled, the stand-ins built', () => {
    const run = prepare('silent', [`${PREFIX}/debian:bookworm`, `${PREFIX}/node:24`]);
    expect(run.status, run.output).toBe(0);
    expect(run.pulls).toEqual(['postgres:17-alpine']);
    expect(run.output).toMatch(/no registry answered a pull of postgres:17-alpine within 1 s/);
    expect(run.builds).toHaveLength(6);
  });
});
