# syntax=docker/dockerfile:1
# Node 24 LTS (supported until April 2028). Pinned to the major, not to a digest: a digest would
# freeze today's OS and Node patch releases, and security fixes would wait for someone to bump it.
# A rebuild takes the newest 24.x on Debian 12; CI tests the code on Node 20 and 24 (.ci/run).
# Build stage: compile TypeScript, then keep production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci`: exactly the lock file, or the build fails.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY plugins ./plugins
COPY examples ./examples
COPY explorer ./explorer
RUN npm run build:prod && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: compiled JavaScript, production dependencies, non-root. The files stay owned by
# root: the gateway reads its code, specs and dependencies but cannot change them.
FROM node:24-bookworm-slim
# MALLOC_MMAP_THRESHOLD_: glibc hands blocks of 128 KB and more straight back to the system instead
# of keeping what a reload freed (each reload of Kubernetes' spec left 20–60 MB of RSS behind;
# bench/README.md, rows 6/6b). `npm start` and the bench's gateways set the same.
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 SPECS_DIR=/app/specs MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY specs ./specs
COPY explorer/index.html explorer/explorer.css ./explorer/
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --max-semi-space-size=16: the gateway's young generation, two 16 MB semi-spaces whatever the pod's
# memory (left to V8: 2 MB under 512Mi, 1.3× the CPU per 304; 128 MB of young garbage on a large
# host; docs/operations.md). Each catalog build's child process gets flags of its own.
CMD ["node", "--max-semi-space-size=16", "dist/src/cli/index.js", "serve"]
