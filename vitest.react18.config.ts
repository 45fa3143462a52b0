import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The hook tests once more, against React 18 (pollite/react's peer range is ^18 || ^19; the root
// devDependencies hold React 19). React 18 is installed by test/react18/package.json, a package of
// its own so that react-dom 18 finds react 18 next to it.
const react18 = (name: string): string => fileURLToPath(new URL(`./test/react18/node_modules/${name}`, import.meta.url));
// @testing-library/react's ES module build (its package.json has no exports map, and Vite would pick
// the CommonJS "main", whose require() calls Node resolves to the root's react-dom 19).
const testingLibraryEsm = fileURLToPath(new URL('./node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url));

export default defineConfig({
  // The development build (src/options/dev.d.ts), as in vitest.config.ts.
  define: { __DEV__: 'true' },
  resolve: {
    // react, react/jsx-runtime, react/jsx-dev-runtime, react-dom, react-dom/client, /server, /test-utils…
    // for the tests, src/react and @testing-library/react (inlined below).
    alias: [
      { find: /^react(\/.*)?$/, replacement: `${react18('react')}$1` },
      { find: /^react-dom(\/.*)?$/, replacement: `${react18('react-dom')}$1` },
      { find: /^@testing-library\/react$/, replacement: testingLibraryEsm },
    ],
  },
  test: {
    include: ['test/react/**/*.test.tsx'],
    testTimeout: 15_000,
    maxWorkers: 2,
    // Read by test/react/react-version.test.tsx, so that this run cannot quietly test React 19 again.
    env: { POLLITE_REACT_MAJOR: '18' },
    server: {
      deps: {
        // Left to Node, @testing-library/react would import the root's react-dom 19; processed by
        // Vite, its imports of react and react-dom go through the aliases above.
        inline: [/[\\/]@testing-library[\\/]react[\\/]/],
      },
    },
  },
});
