# Stand-in for the official node:24-bookworm-slim, for machines with no container registry.
# Debian bookworm (debootstrap'd by scripts/docker-prepare.sh), the Node 24 binary the workspace
# installs (the root devDependency `node`), npm, and the user `node` with uid 1000 as upstream.
ARG DEBIAN_IMAGE=localhost/plant-store-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
CMD ["node"]
