# Stand-in for the official postgres image, for machines with no container registry: Debian's
# PostgreSQL 15 with an entrypoint that honours the official image's interface (POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, PGDATA=/var/lib/postgresql/data, pg_isready, port 5432).
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && pg_dropcluster 15 main || true
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
RUN mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 2777 /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
