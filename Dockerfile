# The service image: the same code runs as `api` or `worker` (see docker-compose.yml), as compiled
# JavaScript (docs/operations.md "Running compiled JavaScript"): the build stage bundles it with
# `npm run build` (tools/build.ts: dist/main/*.js and the workflow bundle); the image holds the
# production dependencies and dist/ only, runs `node` directly (no npm or tsx process), as the
# unprivileged `node` user, with a health check (docs/security.md "Supply chain and the image").
FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY tools/build.ts ./tools/build.ts
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 NPM_CONFIG_UPDATE_NOTIFIER=false WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Code and dependencies stay root-owned and read-only to the service user.
USER node
EXPOSE 3000
# API: GET /health (503 when PostgreSQL or Temporal is unreachable). Worker: set HEALTH_PORT to
# METRICS_PORT (9464) and HEALTH_PATH=/metrics (any answer below 500 is alive).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT||3000)+(process.env.HEALTH_PATH||'/health')).then(r=>process.exit(r.status<500?0:1),()=>process.exit(1))"
# The production node flags and environment come from dist/node-flags and dist/node-env (tools/build.ts
# PRODUCTION_NODE_FLAGS, PRODUCTION_NODE_ENV); exec keeps node PID 1.
CMD ["sh", "-c", "exec env $(cat dist/node-env) node $(cat dist/node-flags) dist/main/api.js"]
