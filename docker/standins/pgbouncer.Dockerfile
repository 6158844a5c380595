# Debian's PgBouncer, configured by a file mounted at /etc/pgbouncer/pgbouncer.ini (and its
# auth_file), run in the foreground as the postgres user.
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pgbouncer \
 && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432
CMD ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
