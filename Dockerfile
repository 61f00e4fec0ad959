# Build with dev dependencies, run the built entry with production ones only, as a non-root user.
# Node.js 24 (LTS), the line CI runs the tests on (.ci/run); Debian 13.
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency needs its install script: the native parts (swc, the file watcher) come prebuilt
# in their platform packages and PGlite is WebAssembly.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
# `nest build` alone: not `npm run build`, which also makes the embedded database's template. The
# image is run with DATABASE_URL (docker-compose.yml); without it the embedded database still
# starts, making its cluster on the first boot (seconds slower) and migrating it.
RUN npx nest build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-trixie-slim
# Imports from git run the git program (shallow, filtered fetches that git itself keeps working
# against every host); ca-certificates lets it check the hosts' certificates. No recommends (no
# ssh client, no gpg, no less): the imports speak https, or http to hosts an operator allows.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
