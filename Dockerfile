# syntax=docker/dockerfile:1
#
# One image for every service. The default command runs the gateway (all-in-one when no service
# URLs are set); each service container overrides it with `node services/<name>/dist/main.js`
# (docker-compose.yml, deploy/k8s/).
#
# Node 22 LTS: its npm 10 accepts the committed lockfile as it is (npm 11, shipped with Node 24,
# also wants the other platforms' optional packages listed in it).
ARG NODE_IMAGE=node:22-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build

# better-sqlite3 and argon2 are native addons: node-gyp compiles them when no prebuilt binary
# matches, which needs python3, make and a C++ compiler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# Compile against the headers that ship in the image instead of downloading them.
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

WORKDIR /app

# Manifests first: the dependency layer is rebuilt only when a package.json or the lockfile changes.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/platform/package.json packages/platform/
COPY services/identity/package.json services/identity/
COPY services/billing/package.json services/billing/
COPY services/channels/package.json services/channels/
COPY services/relay/package.json services/relay/
COPY services/notifier/package.json services/notifier/
COPY services/gateway/package.json services/gateway/
COPY web/package.json web/
RUN npm ci

# Sources (.dockerignore keeps node_modules, dist and *.tsbuildinfo out, so tsc -b emits everything).
COPY . .
RUN npm run build

# Drop dev dependencies (typescript, jest, testcontainers, ...). The workspace links in
# node_modules/@aigw stay: workspaces count as production dependencies of the root.
RUN npm prune --omit=dev

# Stage exactly what runs: the root manifest, node_modules, and per workspace its package.json,
# its dist, and its own node_modules when npm had to nest one there. web/dist exists only once the
# console has a build; without it the gateway serves its placeholder page.
RUN mkdir /out \
 && cp -a package.json node_modules /out/ \
 && for ws in $(node -p "require('./package.json').workspaces.join(' ')"); do \
      mkdir -p "/out/$ws" && cp "$ws/package.json" "/out/$ws/" \
      && for part in dist node_modules; do \
           if [ -d "$ws/$part" ]; then cp -a "$ws/$part" "/out/$ws/"; fi; \
         done; \
    done

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

# NODE_OPTIONS: young-generation semi-spaces of 32 MB for every service (docs/architecture.md
# section 5; `npm start` and tools/cluster pass the same flag).
ENV NODE_ENV=production \
    DATA_DIR=/app/data \
    NODE_OPTIONS=--max-semi-space-size=32

WORKDIR /app

# Root-owned code: the unprivileged process cannot modify what it runs.
COPY --from=build /out/ ./

# Only SQLite (no DATABASE_URL) writes to disk, under DATA_DIR: the one folder the user may write.
# Mount a volume there to keep an all-in-one SQLite database.
RUN mkdir -p /app/data && chown 1000:1000 /app/data

# The image's `node` user, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

EXPOSE 3000

# No curl in the slim image: Node's own fetch asks the process's /healthz on its PORT
# (services listen on their own default port when PORT is unset; compose and k8s always set it).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Node runs as PID 1 and handles SIGTERM itself (drains for SHUTDOWN_GRACE_MS, then exits).
CMD ["node", "services/gateway/dist/main.js"]
