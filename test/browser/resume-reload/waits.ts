import type { Page } from 'playwright-core';
import type { JobServer } from './api-server.js';

/** Polls `condition` every 20 ms; throws naming `what` after `ms` (generous: the machine may be loaded). */
export async function untilTrue(condition: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The part of a saved checkpoint the tests read. */
export interface SavedCheckpoint {
  url?: string;
  notBefore?: number;
  idempotencyKey?: string;
  data?: unknown;
}

/** The checkpoint saved in the page's localStorage under `name`, parsed, or null. */
export async function checkpointOf(page: Page, name: string): Promise<SavedCheckpoint | null> {
  const text = await page.evaluate((key) => localStorage.getItem(key), name);
  return text === null ? null : (JSON.parse(text) as SavedCheckpoint);
}

/**
 * Throws unless the server's last wait is still running: a reload meant to
 * fall within a wait must, or the test would prove nothing (a loaded
 * machine that took the whole wait to get here fails loudly instead).
 */
export function waitAsked(api: JobServer, what: string): void {
  if (api.notBefore() <= Date.now()) throw new Error(`the reload during ${what}'s wait came after it was over`);
}
