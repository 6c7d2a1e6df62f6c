# Production image: builds the server and the admin app, runs the compiled server. Node 22 LTS
# (the code and its dependencies keep running on Node 20, which CI tests).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
COPY bin ./bin
COPY package.json ./
EXPOSE 8000
# server.ts handles SIGTERM: in-flight requests finish before the process exits.
CMD ["bin/with-memory-settings", "node", "dist/server/server.js"]
