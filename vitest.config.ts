import { defineConfig } from 'vitest/config';

export default defineConfig({
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
