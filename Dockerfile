# One image for the whole desk; the command picks the service:
#   docker run fxdesk services/execution/src/server.ts
# Production runs a current LTS line (development and CI run Node 20, the oldest one supported).
FROM node:24-bookworm-slim AS build
# better-sqlite3 compiles from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages/ packages/
COPY services/ services/
COPY scripts/ scripts/
RUN npm ci --omit=dev && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/app/data \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["services/strategy/src/server.ts"]
