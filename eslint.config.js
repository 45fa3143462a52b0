import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', 'playground/dist/**', 'docs/site/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The core runs everywhere: no Node built-ins, no process.env.
    files: ['src/options/**', 'src/backoff/**', 'src/env/**', 'src/errors/**', 'src/http/**', 'src/policy/**', 'src/cooldown/**', 'src/poll/**', 'src/retry/**', 'src/observe/**', 'src/operation/**', 'src/testing/**', 'src/cooperate/**', 'src/index.ts'],
    rules: {
      // and nothing of React: it is a peer dependency of `pollite/react` only.
      'no-restricted-imports': ['error', { patterns: ['node:*', 'react', 'react/*', 'react-dom', 'react-dom/*', 'vue', 'svelte', 'svelte/*', 'solid-js', 'solid-js/*'] }],
      'no-restricted-globals': ['error', 'process', 'Buffer'],
    },
  },
  {
    // pollite/server and pollite/tanstack run everywhere too: web-standard Request/Response only
    // (the node:http adapter speaks to Node's objects structurally), and only the types of
    // @tanstack/query-core, an optional peer dependency.
    files: ['src/server/**', 'src/tanstack/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@tanstack/query-core', allowTypeImports: true, message: 'Only its types: it is an optional peer.' }],
          patterns: ['node:*', 'react', 'react/*', 'react-dom', 'react-dom/*'],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'Buffer'],
    },
  },
);
