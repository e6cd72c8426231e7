# One image for the whole desk; the command picks the service:
#   docker run fxdesk services/execution/dist/server.js
# Production runs a current LTS line (development and CI run Node 20, the oldest one supported)
# on compiled JavaScript: no tsx and no esbuild in the image.

# The services bundled into services/<name>/dist (scripts/build.ts), and the console's static
# files into packages/console/dist (Vite), which the strategy serves at /ui. Building needs every
# dependency installed but none of their install scripts: esbuild's and Rolldown's binaries are
# packages of their own.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages/ packages/
COPY services/ services/
COPY scripts/ scripts/
RUN npm ci --ignore-scripts \
 && npm run build \
 && npm run build -w @fxdesk/console \
 && mkdir /out /manifests \
 && cp -r --parents services/*/package.json services/*/dist packages/console/dist /out/ \
 && cp --parents packages/*/package.json services/*/package.json /manifests/

# The production dependencies alone; better-sqlite3 compiles from source for this Node. Only the
# manifests come in, so an edit to the sources reuses this layer.
FROM node:24-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /manifests/ ./
# The bundles hold the workspace packages; their links would point at sources the image leaves out.
# The root's prepare script (the console's build, done above) is skipped, so only the driver's
# own install script runs.
RUN npm ci --omit=dev --ignore-scripts \
 && npm rebuild better-sqlite3 \
 && rm -rf node_modules/@fxdesk \
 && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/app/data \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules/ node_modules/
COPY --from=build --chown=node:node /out/ ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
# Stack traces name the TypeScript lines, as they do under tsx in development.
ENTRYPOINT ["node", "--enable-source-maps"]
CMD ["services/strategy/dist/server.js"]
