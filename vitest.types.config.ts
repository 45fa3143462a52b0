import { mkdirSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { TYPE_TESTS } from './vitest.config.js';

// The type tests (expectTypeOf, assertType), checked by tsc through vitest's typecheck mode: a
// wrong type fails a named test. tsc is given the type tests alone (and what they import), not
// the whole project, which `npm run typecheck` already checks: a tsconfig generated in .tmp (with the
// ambient declaration of the build-time `__DEV__`, which no module imports).
const tsconfig = '.tmp/tsconfig.types.json';
mkdirSync('.tmp', { recursive: true });
writeFileSync(tsconfig, `${JSON.stringify({ extends: '../tsconfig.json', include: [...TYPE_TESTS.map((glob) => `../${glob}`), '../src/options/dev.d.ts'] }, null, 2)}\n`);

export default defineConfig({
  test: {
    include: [],
    typecheck: {
      enabled: true,
      only: true,
      include: TYPE_TESTS,
      tsconfig,
    },
  },
});
