import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    exclude: ['test/browser/**', 'node_modules/**'],
    testTimeout: 15_000,
    // Two cores on CI: keep the pool small so timing-sensitive integration tests stay calm.
    maxWorkers: 2,
  },
});
