# Stand-in for an etcd image: Debian's etcd-server 3.4 (the v3 API Patroni's etcd3 client speaks).
# Configured by ETCD_* variables (docker/compose.ha.yaml); data lives in /var/lib/etcd.
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends etcd-server etcd-client \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/etcd
ENV ETCDCTL_API=3
VOLUME /var/lib/etcd
EXPOSE 2379 2380
ENTRYPOINT ["etcd"]
