import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Each build's id: compiled into the app and written to /version.json, which open pages poll to
 * learn that a newer build is being served (the 'Software update is available' snackbar).
 */
const BUILD_ID = process.env.FIREWATCH_BUILD_ID ?? new Date().toISOString();

// The server serves dist/admin (ADMIN_DIST) and falls back to index.html for client routes, so
// assets use absolute URLs: pages live under /{organization}/... at any depth.
export default defineConfig({
  root,
  base: '/',
  define: { __BUILD_ID__: JSON.stringify(BUILD_ID) },
  plugins: [
    react(),
    {
      name: 'firewatch-version',
      generateBundle() {
        this.emitFile({ type: 'asset', fileName: 'version.json', source: JSON.stringify({ build: BUILD_ID }) });
      },
    },
  ],
  build: { outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 4000 },
  server: { proxy: { '/api': process.env.FIREWATCH_API ?? 'http://127.0.0.1:8000' } },
});
