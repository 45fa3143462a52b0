/**
 * Whether the checks that only help a developer run: option types, unknown
 * option names, the options that moved. Each is written behind
 * `if (typeof __DEV__ === 'undefined' || __DEV__)`, so that the source run
 * as it is (vitest, tsx, esbuild or Vite on src/) counts as development.
 * scripts/build-production.mjs turns that guard into `true` in dist/ (what
 * Node, Deno, Bun, tests and dev servers load) and into `false` in
 * dist/production/ (the `production` export condition), whose dead branches
 * it drops. Never a value read at run time: no process.env in the core.
 */
declare const __DEV__: boolean;
