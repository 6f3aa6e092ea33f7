# The service image: the same code runs as `api` or `worker` (see docker-compose.yml).
# Production dependencies only (tsx, which runs the TypeScript at start, is one of them), run as
# the unprivileged `node` user, with a health check (docs/security.md "Supply chain and the image").
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 NPM_CONFIG_UPDATE_NOTIFIER=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
# Code and dependencies stay root-owned and read-only to the service user.
USER node
EXPOSE 3000
# API: GET /health (503 when PostgreSQL or Temporal is unreachable). Worker: set HEALTH_PORT to
# METRICS_PORT (9464) and HEALTH_PATH=/metrics (any answer below 500 is alive).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT||3000)+(process.env.HEALTH_PATH||'/health')).then(r=>process.exit(r.status<500?0:1),()=>process.exit(1))"
CMD ["npm", "run", "api"]
