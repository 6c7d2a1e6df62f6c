import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The server serves dist/admin (ADMIN_DIST) and falls back to index.html for client routes, so
// assets use absolute URLs: pages live under /{organization}/... at any depth.
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: { outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 4000 },
  server: { proxy: { '/api': process.env.FIREWATCH_API ?? 'http://127.0.0.1:8000' } },
});
