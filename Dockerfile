# One image for every troupe process: `gateway` (the default), `worker [--kinds a,b]`, `start`, ...
#   docker build -t troupe .
#   docker run --rm troupe --help
# docker-compose.yml builds it and runs two gateways behind a proxy plus two workers.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, then type check and bundle -> dist/server, dist/web -------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- deps: production dependencies only (a separate stage so the build's dev tools never ship) -
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# A young generation of 64 MB semi-spaces: under load, requests' objects die before a scavenge
# promotes them (README, "Running troupe's processes").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=64 \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
# Application files stay owned by root (read-only for the process); only .troupe/ is writable, for
# `troupe start` without MONGODB_URI, whose embedded server journals to .troupe/mongo.
# The image carries the bundle, not the TypeScript sources: bin/troupe.js runs the build in
# dist/server/CURRENT as is.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/models/data ./models/data
COPY bin ./bin
COPY package.json ./
RUN mkdir -p .troupe && chown node:node .troupe
USER node
EXPOSE 8080
# Liveness of the gateway (GET /healthz touches no dependency). The slim image has no curl, so Node's
# fetch does the request. Worker containers serve no HTTP: override or disable this check for them.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/troupe.js"]
CMD ["gateway"]
