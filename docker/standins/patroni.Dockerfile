# Stand-in for a Patroni image (there is no official one; docs/ha.md names community images):
# Debian's PostgreSQL 15 and Debian's Patroni 3.0 with its etcd v3 client, run as the postgres user.
# The entrypoint writes /etc/patroni/patroni.yml from the environment, so that `patronictl list`
# works inside the container with no arguments, then runs Patroni in the foreground.
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      postgresql-15 patroni python3-etcd curl \
 && rm -rf /var/lib/apt/lists/* \
 && (pg_dropcluster 15 main || true) \
 && mkdir -p /etc/patroni /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /etc/patroni /var/lib/postgresql /var/run/postgresql \
 && chmod 2777 /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PATRONICTL_CONFIG_FILE=/etc/patroni/patroni.yml
COPY patroni-entrypoint.sh /usr/local/bin/patroni-entrypoint.sh
COPY patroni-post-bootstrap.sh /usr/local/bin/patroni-post-bootstrap.sh
USER postgres
WORKDIR /var/lib/postgresql
VOLUME /var/lib/postgresql/data
EXPOSE 5432 8008
# Patroni stops PostgreSQL (fast shutdown) and gives up its leader key on SIGTERM.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=2s --timeout=2s --start-period=60s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8008/health"]
ENTRYPOINT ["patroni-entrypoint.sh"]
