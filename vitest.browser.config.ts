import { defineConfig } from 'vitest/config';

// Browser tests: node-side vitest files that drive Debian's Chromium through
// playwright-core against servers on 127.0.0.1.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
