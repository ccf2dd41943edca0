// Builds the two pages of web/: the mission page (/app) and the operator console (/console), into
// web/dist with their shared, content-hashed assets under /assets/. JSX is compiled by Vite's own
// esbuild (no React plugin: production builds need no fast refresh).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  publicDir: false,
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: process.env.WEB_OUT_DIR ?? here('dist'),
    emptyOutDir: true,
    target: 'es2020',
    reportCompressedSize: true,
    rollupOptions: {
      input: { app: here('app/index.html'), console: here('console/index.html') },
    },
  },
  server: {
    // `npm run dev:web`: the pages with reload, the API proxied to a running service.
    proxy: { '/v1': 'http://localhost:8080', '/admin': 'http://localhost:8080' },
  },
});
