import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Where `npm run playground` writes the page. */
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('./dist', import.meta.url));

/** Builds the playground page (React, production mode) into `outDir` with Vite. */
export async function buildPlayground(outDir = DEFAULT_OUT_DIR): Promise<void> {
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    base: './',
    mode: 'production',
    plugins: [react()],
    build: {
      outDir,
      emptyOutDir: true,
      reportCompressedSize: false,
    },
  });
}
