import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginOption } from 'vite';

/** The frameworks with an adapter, each with a page under pages/. */
export type Framework = 'react' | 'vue' | 'svelte' | 'solid';

const plugins = async (framework: Framework | 'observe'): Promise<PluginOption[]> => {
  if (framework === 'react') return [(await import('@vitejs/plugin-react')).default()];
  if (framework === 'svelte') return [(await import('@sveltejs/vite-plugin-svelte')).svelte()];
  // Vue's page uses render functions and Solid's solid-js/html: neither needs a compiler plugin.
  return [];
};

/**
 * Builds the framework's page under `pages` (pages/, or resume-pages/ of
 * ../resume-reload.test.ts, which has a page for `pollite/observe` alone
 * too) with Vite (production mode, as an app ships) into a fresh temp dir,
 * and returns it.
 */
export async function buildPage(framework: Framework | 'observe', pages: 'pages' | 'resume-pages' = 'pages'): Promise<string> {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), `pollite-${framework}-page-`));
  await build({
    root: fileURLToPath(new URL(`./${pages}/${framework}/`, import.meta.url)),
    configFile: false,
    logLevel: 'warn',
    base: './',
    mode: 'production',
    plugins: await plugins(framework),
    define: { __VUE_OPTIONS_API__: 'false', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' },
    build: { outDir, emptyOutDir: true, reportCompressedSize: false, minify: false },
  });
  return outDir;
}
