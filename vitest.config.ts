import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships ESM (.mjs) and CJS builds; Vite would pick the ESM one for our code while
    // Yoga and Pothos load the CJS one through Node, and graphql refuses mixed instances.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**', '.tmp/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Engines (ffmpeg, LibreOffice) are CPU-heavy: two cores, so few files at once.
    maxWorkers: 2,
    pool: 'forks',
  },
});
