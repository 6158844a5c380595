#!/usr/bin/env bash
# `pnpm docker:prepare`: make a Docker engine answer and the images the project's containers use
# present, on a machine with a registry or without one.
#
# 1. An engine: when `docker info` fails, install Debian's docker.io, docker-compose and debootstrap
#    (as root, with apt-get) and start dockerd. The engine is started so that every pull fails at once
#    (its HTTP(S) proxy is a closed loopback port): nothing then comes from a registry.
# 2. The images, each only when absent. An official one is pulled where a registry answers (a pull
#    with no answer from the registry within 30 s is given up, and nothing more is pulled); where none
#    does, a stand-in is built from Debian packages (see docs/containers.md):
#      localhost/plant-store-ci/node:24           for node:24.21.0-bookworm-slim: the workspace's Node 24 binary + npm, user node (uid 1000)
#      localhost/plant-store-ci/postgres:15       for postgres:17-alpine: Debian's PostgreSQL 15, the official image's interface
#    These are built when absent, registry or not, FROM the Debian base below (three have no
#    official image; the HAProxy one is what docker/compose.ha.yaml runs by default beside two of them):
#      localhost/plant-store-ci/haproxy:2.6       Debian's HAProxy (for haproxy:2.6, which the drills take when held)
#      localhost/plant-store-ci/pgbouncer:1.18    Debian's PgBouncer (the contract suite through a pooler)
#      localhost/plant-store-ci/patroni:3.0       Debian's PostgreSQL 15 run by Debian's Patroni (docker/compose.ha.yaml)
#      localhost/plant-store-ci/etcd:3.4          Debian's etcd-server, Patroni's consensus store
#    The Debian base (the stand-ins' DEBIAN_IMAGE build argument): localhost/plant-store-ci/debian:bookworm
#    when present, else the official debian:bookworm-slim where a registry answers, else
#    localhost/plant-store-ci/debian:bookworm made by `debootstrap --variant=minbase bookworm` (root).
# 3. The api image, built from docker/Dockerfile on every run (BuildKit's cache makes a rebuild of
#    unchanged sources a few seconds), on the official Node base when present, else the stand-in:
#      plant-store-api                     what the compose files' `image:` names (API_IMAGE's default):
#                                          Debian's docker-compose 1.29 cannot build the Dockerfile
#                                          (no BuildKit), so `up` must find it
#      localhost/plant-store-ci/api:drill  the same image under the drills' tag (PLANT_STORE_API_IMAGE):
#                                          their own build of it is then all cache hits
#
# Environment: PLANT_STORE_DOCKERD_LOG (default /var/log/plant-store-dockerd.log); API_IMAGE,
# PLANT_STORE_API_IMAGE, PLANT_STORE_NODE_IMAGE as the compose files and the drills read them;
# PLANT_STORE_DOCKER, the client (default /usr/bin/docker, Debian's, else docker on PATH);
# PLANT_STORE_PULL_ANSWER_S, how long a pull waits for the registry's first answer (default 30);
# NODE_EXTRA_CA_CERTS, given to the api build as its `extra_ca` secret (docker/Dockerfile).
# Exits non-zero with a sentence saying what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX=localhost/plant-store-ci
# Debian's client where installed: it builds with BuildKit (a newer one on PATH without buildx cannot).
# Chosen again once docker.io is installed, so a fresh machine does not build with the one on PATH.
choose_client() {
  DOCKER_BIN=${PLANT_STORE_DOCKER:-/usr/bin/docker}
  if [ -z "${PLANT_STORE_DOCKER:-}" ] && [ ! -x "$DOCKER_BIN" ] && command -v docker >/dev/null; then
    DOCKER_BIN=$(command -v docker)
  fi
}
choose_client
# Whether a registry may answer a pull: unknown until one is tried; "no" once one is not answered,
# or when this script starts the engine (whose pulls fail by design).
REGISTRY=unknown
PULL_ANSWER_S=${PLANT_STORE_PULL_ANSWER_S:-30}
DOCKERD_LOG=${PLANT_STORE_DOCKERD_LOG:-/var/log/plant-store-dockerd.log}
export DOCKER_BUILDKIT=1

say() { printf -- '--- docker:prepare: %s\n' "$*"; }
die() {
  printf 'docker:prepare: %s\n' "$*" >&2
  exit 1
}
elapsed() { echo "$(($(date +%s) - $1)) s"; }

engine_answers() { [ -x "$DOCKER_BIN" ] && "$DOCKER_BIN" info >/dev/null 2>&1; }

install_packages() {
  local missing=()
  [ -x /usr/sbin/dockerd ] || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "no Docker engine answers and ${missing[*]} are not installed; as root, run: apt-get install -y ${missing[*]}"
  command -v apt-get >/dev/null || die "no Docker engine answers, and this machine has no apt-get to install ${missing[*]}"
  local start
  start=$(date +%s)
  say "installing ${missing[*]} from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  say "installed in $(elapsed "$start")"
  choose_client
}

start_engine() {
  [ "$(id -u)" = 0 ] || die "no Docker engine answers at $DOCKER_BIN; dockerd needs root to start (sudo pnpm docker:prepare)"
  say "starting dockerd (log: $DOCKERD_LOG)"
  # --iptables=false: this machine's kernel rules are not dockerd's to change; containers reach each
  # other on their own networks and the host through published ports (docker-proxy).
  # The proxies point at a closed port, so a pull fails at once instead of hanging.
  HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= \
    setsid nohup /usr/sbin/dockerd --iptables=false >>"$DOCKERD_LOG" 2>&1 </dev/null &
  REGISTRY=no
  for _ in $(seq 1 60); do
    engine_answers && return 0
    sleep 0.5
  done
  tail -n 20 "$DOCKERD_LOG" >&2 || true
  die "dockerd did not answer within 30 s (its log above, in full at $DOCKERD_LOG)"
}

image_present() { "$DOCKER_BIN" image inspect "$1" >/dev/null 2>&1; }

# Pulls $1 where a registry answers. A pull prints nothing until the registry has answered: one with
# no output after PULL_ANSWER_S is given up, and then the download has 10 minutes. Returns 1 when not
# pulled.
pull_official() {
  local image=$1 out pid ticks=0 limit=$((PULL_ANSWER_S * 2))
  [ "$REGISTRY" = no ] && return 1
  out=$(mktemp)
  "$DOCKER_BIN" pull "$image" >"$out" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [ -s "$out" ] && limit=1200
    if [ "$ticks" -ge "$limit" ]; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      say "no registry answered a pull of $image within $((ticks / 2)) s: given up, nothing more is pulled"
      rm -f "$out"
      REGISTRY=no
      return 1
    fi
    sleep 0.5
    ticks=$((ticks + 1))
  done
  if wait "$pid"; then
    say "pulled $image"
    REGISTRY=yes
    rm -f "$out"
    return 0
  fi
  say "$image not pulled: $(tail -n 1 "$out")"
  rm -f "$out"
  REGISTRY=no
  return 1
}

# The official image or its stand-in present, else the official one pulled; else 1 (build the stand-in).
official_present() { # official standin
  image_present "$1" || image_present "$2" || pull_official "$1"
}

build_standin() { # name dockerfile context [build args...]
  local name=$1 dockerfile=$2 context=$3 start
  shift 3
  image_present "$name" && return 0
  debian_image
  start=$(date +%s)
  say "building $name on $DEBIAN_BASE"
  "$DOCKER_BIN" build --network host --pull=false --progress=plain -q -f "$dockerfile" -t "$name" \
    --build-arg "DEBIAN_IMAGE=$DEBIAN_BASE" "$@" "$context" >/dev/null
  say "$name built in $(elapsed "$start")"
}

# Sets DEBIAN_BASE, the stand-ins' base: made once, on the first stand-in to build.
DEBIAN_BASE=
debian_image() {
  local name=$PREFIX/debian:bookworm
  [ -n "$DEBIAN_BASE" ] && return 0
  DEBIAN_BASE=$name
  image_present "$name" && return 0
  if image_present debian:bookworm-slim || pull_official debian:bookworm-slim; then
    DEBIAN_BASE=debian:bookworm-slim
    return 0
  fi
  command -v debootstrap >/dev/null || install_packages
  [ "$(id -u)" = 0 ] || die "$name is missing; debootstrap needs root to make it"
  local mirror start rootfs
  # The mirror apt already uses (deb822 or one-line sources), else Debian's own.
  mirror=$(grep -h -o -E '(URIs:|^deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
    grep -v security | head -n 1 | awk '{print $2}' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  start=$(date +%s)
  rootfs=$(mktemp -d /tmp/plant-store-rootfs.XXXXXX)
  say "debootstrap bookworm from $mirror"
  if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1; then
    tail -n 20 "$rootfs.log" >&2
    die "debootstrap failed (log: $rootfs.log)"
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" --numeric-owner -c . | "$DOCKER_BIN" import -c 'CMD ["bash"]' - "$name" >/dev/null
  rm -rf "$rootfs" "$rootfs.log"
  say "$name made in $(elapsed "$start")"
}

node_image() {
  local name=$PREFIX/node:24
  official_present node:24.21.0-bookworm-slim "$name" && return 0
  local node npm context
  node=$(pnpm exec node -p process.execPath)
  [ "$(pnpm exec node -p 'process.versions.node.split(".")[0]')" = 24 ] || die "the workspace's node is not Node 24 ($node)"
  npm=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  [ -f "$npm/package.json" ] || die "npm's folder not found (looked at $npm)"
  context=$(mktemp -d /tmp/plant-store-node.XXXXXX)
  cp "$node" "$context/node"
  cp -r "$npm" "$context/npm"
  build_standin "$name" docker/standins/node.Dockerfile "$context"
  rm -rf "$context"
}

api_image() {
  local compose_tag=${API_IMAGE:-plant-store-api}
  local drill_tag=${PLANT_STORE_API_IMAGE:-$PREFIX/api:drill}
  local base=${PLANT_STORE_NODE_IMAGE:-} start secret=()
  if [ -z "$base" ]; then
    # As the drills choose (packages/container-drills/src/docker.ts): the official base when present.
    for base in node:24.21.0-bookworm-slim "$PREFIX/node:24"; do image_present "$base" && break; done
  fi
  image_present "$base" || die "no Node 24 base image ($base) to build the api on"
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    secret=(--secret "id=extra_ca,src=$NODE_EXTRA_CA_CERTS")
  fi
  start=$(date +%s)
  say "building the api image ($compose_tag, $drill_tag) on $base"
  "$DOCKER_BIN" build --network host --pull=false --progress=plain -q -f docker/Dockerfile \
    --build-arg "NODE_IMAGE=$base" "${secret[@]}" -t "$compose_tag" -t "$drill_tag" . >/dev/null
  say "api image built in $(elapsed "$start")"
}

total=$(date +%s)
if ! engine_answers; then
  install_packages
  start_engine
fi
say "engine: $("$DOCKER_BIN" version --format 'server {{.Server.Version}}, client {{.Client.Version}}')"
node_image
official_present postgres:17-alpine "$PREFIX/postgres:15" ||
  build_standin "$PREFIX/postgres:15" docker/standins/postgres.Dockerfile docker/standins
build_standin "$PREFIX/haproxy:2.6" docker/standins/haproxy.Dockerfile docker/standins
build_standin "$PREFIX/pgbouncer:1.18" docker/standins/pgbouncer.Dockerfile docker/standins
build_standin "$PREFIX/patroni:3.0" docker/standins/patroni.Dockerfile docker/standins
build_standin "$PREFIX/etcd:3.4" docker/standins/etcd.Dockerfile docker/standins
api_image
say "ready in $(elapsed "$total"); images:"
"$DOCKER_BIN" image ls --format '  {{.Repository}}:{{.Tag}}  {{.Size}}' "$PREFIX/*"
"$DOCKER_BIN" image ls --format '  {{.Repository}}:{{.Tag}}  {{.Size}}' "${API_IMAGE:-plant-store-api}"
