#!/bin/bash
# Writes /etc/patroni/patroni.yml from the environment, then runs Patroni in the foreground.
# The file is what `patronictl` reads (PATRONICTL_CONFIG_FILE), so `patronictl list` works inside
# the container with no arguments. Timings are argued in docs/ha.md.
#   PATRONI_NAME            this member's name, and the host name the others reach it by (default: hostname)
#   PATRONI_SCOPE           the cluster's name in etcd (default: plant-store)
#   PATRONI_ETCD3_HOSTS     etcd members, host:port,host:port (default: etcd1:2379,etcd2:2379,etcd3:2379)
#   PATRONI_SUPERUSER_PASSWORD, PATRONI_REPLICATION_PASSWORD (required)
#   APP_USER, APP_PASSWORD, APP_DB  the service's role and database, made once at bootstrap
#   PATRONI_TTL, PATRONI_LOOP_WAIT, PATRONI_RETRY_TIMEOUT  (default 10, 2, 4)
set -euo pipefail

name=${PATRONI_NAME:-$(hostname)}
: "${PATRONI_SUPERUSER_PASSWORD:?is required}" "${PATRONI_REPLICATION_PASSWORD:?is required}"
data=/var/lib/postgresql/data/pg15

# Patroni reads PATRONI_* variables itself and they win over the file; the file holds the same
# values, so that patronictl (which reads the file) and Patroni agree.
cat > /etc/patroni/patroni.yml <<YAML
scope: ${PATRONI_SCOPE:-plant-store}
namespace: /service/
name: ${name}
log:
  level: INFO
restapi:
  listen: 0.0.0.0:8008
  connect_address: ${name}:8008
etcd3:
  hosts: ${PATRONI_ETCD3_HOSTS:-etcd1:2379,etcd2:2379,etcd3:2379}
bootstrap:
  # Written to etcd once, by the member that bootstraps the cluster; later changes go through
  # patronictl edit-config.
  dcs:
    ttl: ${PATRONI_TTL:-10}
    loop_wait: ${PATRONI_LOOP_WAIT:-2}
    retry_timeout: ${PATRONI_RETRY_TIMEOUT:-4}
    maximum_lag_on_failover: 1048576
    # A standby is promoted only if it was the synchronous one: it holds every commit a client
    # was told of.
    synchronous_mode: true
    synchronous_node_count: 1
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 200
        max_wal_senders: 10
        max_replication_slots: 10
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        synchronous_commit: 'on'
        password_encryption: scram-sha-256
        # A demoted, cut-off leader finishes shutting down only when its WAL senders time out
        # (60 s by default; docs/ha.md). A live standby is asked to answer at half of it.
        wal_sender_timeout: 10s
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums
  post_bootstrap: /usr/local/bin/patroni-post-bootstrap.sh
postgresql:
  listen: 0.0.0.0:5432
  connect_address: ${name}:5432
  data_dir: ${data}
  bin_dir: /usr/lib/postgresql/15/bin
  pgpass: /tmp/pgpass
  authentication:
    superuser:
      username: postgres
      password: '${PATRONI_SUPERUSER_PASSWORD}'
    replication:
      username: replicator
      password: '${PATRONI_REPLICATION_PASSWORD}'
  # A new replica's pg_basebackup asks for a checkpoint; spread (the default) would keep it
  # waiting minutes on an idle leader.
  basebackup:
    - checkpoint: fast
  pg_hba:
    - local all all trust
    - host replication replicator all scram-sha-256
    - host all all all scram-sha-256
YAML
chmod 600 /etc/patroni/patroni.yml

exec patroni /etc/patroni/patroni.yml
