import { serverWait, type HeaderReader } from '../kit/index.js';
import { cooldownKeys, randomId } from './keys.js';
import { COOL, COOLDOWNS } from './scripts.js';
import { FAULT, type ClusterStore } from './store.js';

/** Longest cooldown kept in Redis, ms (a day): each reader caps it by its own `maxRetryAfter` anyway. */
const LONGEST = 86_400_000;
/** Own cooldowns (and cached keys) on record above which the old ones are swept out. */
const SWEEP_ABOVE = 64;

/** The cooldowns one caller (a poll loop, a fetch) has waited out, by id: the last few are enough. */
export class Honoured {
  #ids: string[] = [];
  has(id: string): boolean {
    return this.#ids.includes(id);
  }
  add(id: string): void {
    this.#ids.push(id);
    if (this.#ids.length > 8) this.#ids.shift();
  }
}

/** A cooldown another process announced: ms left, and its id. */
export interface Cooling {
  ms: number;
  id: string;
}

/**
 * The cluster's cooldowns, in Redis: a 503 with Retry-After (or a
 * rate-limit reset) cools the origin, a 429 its route, for every process.
 * Each is one key that expires when the cooldown ends (its TTL, so no two
 * machines' clocks are compared), holding a random id. A reader skips the
 * cooldowns this process announced (the realm's own cooldown holds this
 * process back, as without a cluster) and those it has waited out already.
 */
export class CooldownBoard {
  #store: ClusterStore;
  #prefix: string;
  /** The ids of the cooldowns this process announced, with when they end (local clock). */
  #own = new Map<string, number>();
  /** The keys of the URLs asked about lately (hashing a path takes a turn of the thread pool): an answer's cooldown is announced without delay. */
  #keys = new Map<string, Promise<[string, string] | undefined>>();

  #keysOf(url: URL): Promise<[string, string] | undefined> {
    const route = url.origin + url.pathname;
    let keys = this.#keys.get(route);
    if (!keys) {
      if (this.#keys.size >= SWEEP_ABOVE) this.#keys.clear();
      keys = cooldownKeys(this.#prefix, url).catch(() => undefined);
      this.#keys.set(route, keys);
    }
    return keys;
  }

  constructor(store: ClusterStore, prefix: string) {
    this.#store = store;
    this.#prefix = prefix;
  }

  /** Hashes `url`'s keys ahead of its first request. */
  prepare(url: URL): void {
    if (url.origin !== 'null') void this.#keysOf(url);
  }

  /** The longest cooldown of `url`'s origin and route that the caller has not waited out; undefined when clear, or when Redis fails. */
  async look(url: URL, honoured: Honoured): Promise<Cooling | undefined> {
    if (url.origin === 'null') return undefined;
    const keys = await this.#keysOf(url);
    const reply = keys ? await this.#store.run(COOLDOWNS, keys, []) : FAULT;
    if (reply === FAULT || !Array.isArray(reply)) return undefined;
    let found: Cooling | undefined;
    for (let i = 0; i < 4; i += 2) {
      const ms = Number(reply[i]);
      const id = String(reply[i + 1] ?? '');
      if (ms > 0 && id && !this.#own.has(id) && !honoured.has(id) && ms > (found?.ms ?? 0)) found = { ms, id };
    }
    return found;
  }

  /** Announces the cooldown an answer asks for (a 503 or 429 with Retry-After or a reset), if any. Never rejects. */
  async note(url: URL, status: number, headers: HeaderReader, now: number): Promise<void> {
    if ((status !== 503 && status !== 429) || url.origin === 'null') return;
    const asked = serverWait(status, headers, now);
    if (!asked || !(asked > 0)) return;
    const ms = Math.ceil(Math.min(asked, LONGEST));
    const id = randomId();
    const keys = await this.#keysOf(url);
    if (!keys) return;
    // Marked before it is sent, so a reader of this process never waits for it.
    this.#own.set(id, Date.now() + ms);
    if (this.#own.size > SWEEP_ABOVE) for (const [key, until] of this.#own) if (until <= Date.now()) this.#own.delete(key);
    await this.#store.run(COOL, [status === 503 ? keys[0] : keys[1]], [ms, id]);
  }
}
