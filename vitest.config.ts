import { defineConfig } from 'vitest/config';

/** Type tests assert nothing at run time: they run under `npm run test:types` (vitest.types.config.ts), not here. */
export const TYPE_TESTS = ['test/**/*types.test.ts', 'test/**/*types.test.tsx', 'test/**/*.test-d.ts', 'test/**/*.test-d.tsx'];

export default defineConfig({
  // The development build (src/options/dev.d.ts): every option check on, as in dist/ and wherever pollite runs unbundled.
  define: { __DEV__: 'true' },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    exclude: ['test/browser/**', 'node_modules/**', ...TYPE_TESTS],
    testTimeout: 15_000,
    // A MaxListenersExceededWarning or an unhandled rejection fails the test it happened in.
    setupFiles: ['test/helpers/fail-on-leaks.ts'],
    // Two cores on CI: keep the pool small so timing-sensitive integration tests stay calm.
    maxWorkers: 2,
  },
});
