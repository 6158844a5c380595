# Stand-in for the official haproxy image: Debian's HAProxy, configured by a file mounted at
# /usr/local/etc/haproxy/haproxy.cfg as upstream. It runs in the foreground as the haproxy user.
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /usr/local/etc/haproxy
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
