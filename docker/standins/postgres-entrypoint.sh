#!/bin/bash
# The official postgres image's interface, on Debian's PostgreSQL: on first start, initdb into
# $PGDATA with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD (md5/scram for remote
# connections; without it, as the official image with POSTGRES_HOST_AUTH_METHOD=trust), then
# create POSTGRES_DB (default: the user's name). Runs the server as the postgres user, listening on *:5432.
set -euo pipefail

if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi
shift || true

export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  auth=trust
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    auth=scram-sha-256
  else
    echo "docker-entrypoint: POSTGRES_PASSWORD is not set: remote connections are trusted" >&2
    printf 'unused\n' > "$pwfile"
  fi
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host="$auth" \
    --encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-} >/dev/null
  rm -f "$pwfile"
  printf 'host all all all %s\n' "$auth" >> "$PGDATA/pg_hba.conf"
  # Create the database on a server that only listens on the socket, as the official image does.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -qc "create database \"$db\"" >/dev/null
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "docker-entrypoint: PostgreSQL init process complete; ready for start up." >&2
fi

exec postgres -c listen_addresses='*' -c port=5432 "$@"
