/**
 * The tests' side of scripts/find-tools.mjs, the one place that knows where
 * each external tool is (Chromium, redis-server, nginx, util-linux `script`,
 * Bun, Deno, workerd). A test that needs one writes
 *
 *   describe.skipIf(!requireOrSkip('chromium', 'the browser tests drive it'))(…)
 *
 * Under CI that throws with the reason (the file fails); elsewhere it warns
 * loudly and the tests are skipped.
 */

import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type ToolName = 'chromium' | 'redis-server' | 'nginx' | 'script' | 'bun' | 'deno' | 'workerd';

export type ToolLookup = { name: ToolName; found: true; path: string; version: string } | { name: ToolName; found: false; reason: string };

interface Finder {
  findTool(name: ToolName, env?: NodeJS.ProcessEnv): ToolLookup;
  underCi(env?: NodeJS.ProcessEnv): boolean;
  toolsRequired(env?: NodeJS.ProcessEnv): boolean;
}

// A plain-JavaScript module (the scripts run it without a build); loaded by URL so tsc does not look
// for its types. Built with node:url, not `new URL`: under jsdom the global URL is the DOM's.
const finderUrl = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../../scripts/find-tools.mjs')).href;
const finder = (await import(finderUrl)) as Finder;

/** True under CI (CI set to anything but "", "0" or "false"): then a missing tool fails, and property runs are floored. */
export const underCi = (): boolean => finder.underCi(process.env);

/** Where the tool is and its version, or why it is not there. */
export const findTool = (name: ToolName): ToolLookup => finder.findTool(name, process.env);

/** Whether the tool is there and works. */
export const hasTool = (name: ToolName): boolean => findTool(name).found;

/** The tool's path; throws, with the reason, when it is missing. */
export function toolPath(name: ToolName): string {
  const lookup = findTool(name);
  if (!lookup.found) throw new Error(lookup.reason);
  return lookup.path;
}

/** Debian's Chromium (CHROMIUM_PATH overrides); throws, with the reason, when it is missing. */
export const chromiumPath = (): string => toolPath('chromium');

/**
 * True when the tool is there. When it is not: under CI (or with
 * POLLITE_REQUIRE_TOOLS=1) throws with `reason` and the lookup's own, so the
 * test file fails; elsewhere warns loudly and returns false, for `skipIf`.
 */
export function requireOrSkip(name: ToolName, reason: string): boolean {
  const lookup = findTool(name);
  if (lookup.found) return true;
  if (finder.toolsRequired(process.env)) throw new Error(`${reason} cannot run: ${lookup.reason}. Under CI a missing tool fails the run; it is never skipped.`);
  console.warn(`\n*** SKIPPED ${reason}: ${lookup.reason} ***\n`);
  return false;
}
