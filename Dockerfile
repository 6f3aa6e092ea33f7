# The service image: the same code runs as `api` or `worker` (see docker-compose.yml).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY tools ./tools
ENV NODE_ENV=production PORT=3000
EXPOSE 3000
CMD ["npm", "run", "api"]
