# syntax=docker/dockerfile:1
# Kurz: multi-stage build. The final image holds production dependencies, the compiled server and
# the migrations (applied by the server itself on start), and runs as the unprivileged `node` user.

# Node 20.11 or later, as package.json's engines say (cookie and content-disposition are pinned to
# their CommonJS releases so that nothing asks for Node 22)
ARG NODE_VERSION=20

# -- build: every dependency, then tsc and the dashboard (vite) ---------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json vite.config.ts ./
COPY src ./src
COPY web ./web
RUN npm run build

# -- production dependencies only --------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# -- runtime -----------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node migrations ./migrations
# DATA_DIR: the embedded database (when DATABASE_URL is unset) and the generated secret.key
RUN mkdir -p /app/data && chown node:node /app/data && chmod 700 /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1 and handles SIGTERM: stop accepting, flush clicks, close the database, exit 0
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/server.js"]
