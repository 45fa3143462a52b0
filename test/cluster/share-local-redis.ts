import { createHash } from 'node:crypto';
import type { ClusterRedis } from '../../src/cluster/index.js';
import * as scripts from '../../src/cluster/scripts.js';

/** The name of a Lua script of src/cluster/scripts.ts (`ACQUIRE`, `PUBLISH`...). */
export type ScriptName = keyof typeof scripts;

/** One script run as Redis would have received it. */
export interface SentScript {
  script: ScriptName;
  keys: string[];
  args: string[];
}

const named = new Map<string, ScriptName>();
for (const [name, script] of Object.entries(scripts) as Array<[ScriptName, { source: string }]>) {
  named.set(script.source, name);
  named.set(createHash('sha1').update(script.source).digest('hex'), name);
}

/**
 * A ClusterRedis with no server: each script (EVAL or EVALSHA, named by
 * its constant in scripts.ts) is answered by `answer` (an Error: a
 * failure), and every one is recorded; pub/sub is in memory (`publish`
 * delivers to the subscribed listeners), and `watch` is the test's to call.
 */
export function scriptedRedis(answer: (sent: SentScript) => unknown) {
  const sent: SentScript[] = [];
  const channels = new Map<string, Set<(message: string) => void>>();
  let watcher: ((ready: boolean) => void) | undefined;
  const redis: ClusterRedis = {
    send: async (args) => {
      const [, id = '', count = '0', ...rest] = args;
      const script = named.get(id);
      if (!script) throw new Error(`not a script of scripts.ts: ${args.join(' ')}`);
      const one: SentScript = { script, keys: rest.slice(0, Number(count)), args: rest.slice(Number(count)) };
      sent.push(one);
      const reply = await answer(one);
      if (reply instanceof Error) throw reply;
      return reply;
    },
    subscribe: async (channel, listener) => void channels.set(channel, (channels.get(channel) ?? new Set()).add(listener)),
    unsubscribe: async (channel, listener) => void channels.get(channel)?.delete(listener),
    watch: (listener) => ((watcher = listener), () => (watcher = undefined)),
    close: async () => undefined,
  };
  return {
    redis,
    sent,
    /** The scripts run so far, by name, in order. */
    names: (): ScriptName[] => sent.map((s) => s.script),
    /** Delivers `message` to the channel's listeners, as a PUBLISH would. */
    publish: (channel: string, message: string): void => {
      for (const listener of [...(channels.get(channel) ?? [])]) listener(message);
    },
    /** Listeners subscribed to `channel`. */
    listeners: (channel: string): number => channels.get(channel)?.size ?? 0,
    /** Tells the store the connection dropped (`false`) or is ready again. */
    watch: (ready: boolean): void => watcher?.(ready),
  };
}
