# The Map Topology Service in a container: Node 20 on Debian slim, the
# production dependencies only (installed in a stage of their own, so no npm
# cache is left in the image), run as the unprivileged `node` user, the data
# folder a volume at /data (a new named volume starts with the demo data),
# and a health check on /healthz. See docs/deployment.md.
FROM node:20.20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 MTS_DATA_DIR=/data
# glibc's allocator with a fixed mmap threshold, as `npm start` runs it: memory a load freed goes back (docs/deployment.md: Memory).
ENV GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The demo data seeds /data; private/ (users, keys) is never in the image (.dockerignore).
RUN mkdir -p /data && cp -a data/. /data/ && chown -R node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: SIGTERM from `docker stop` reaches the service itself, which finishes the requests in flight.
CMD ["node", "--import", "tsx", "server.ts"]
