import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Built by scripts/setup.sh into apps/web/dist, which apps/server/web.ts serves under `/`.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
  logLevel: 'warn',
  // `npx vite apps/web` beside `npm start`: the app's requests go to the server on :3000.
  server: {
    proxy: Object.fromEntries(['/graphql', '/api', '/docs'].map((prefix) => [prefix, 'http://localhost:3000'])),
  },
});
